-- case: bitmap union count
SELECT dt, bitmap_union_count(user_bitmap) AS uv FROM daily_uv GROUP BY dt
-- case: bitmap to string and contains
SELECT bitmap_to_string(bitmap_from_string('1,2,3')), bitmap_contains(to_bitmap(5), 5)
-- case: bitmap and or xor count
SELECT bitmap_count(bitmap_and(to_bitmap(1), to_bitmap(1))), bitmap_count(bitmap_or(to_bitmap(1), to_bitmap(2))), bitmap_xor_count(bitmap_from_string('1,2'), bitmap_from_string('2,3'))
-- case: bitmap intersect orthogonal
SELECT orthogonal_bitmap_intersect_count(members, tag, 'a', 'b') FROM tag_map WHERE tag IN ('a', 'b')
-- case: bitmap union int and group bitmap xor
SELECT bitmap_union_int(user_id), group_bitmap_xor(bm) FROM events
-- case: intersect count
SELECT intersect_count(user_id, dt, '2024-01-01', '2024-01-02') FROM visits
-- case: hll union agg
SELECT hll_union_agg(pv_hll) FROM page_stats WHERE dt >= '2024-01-01'
-- case: hll cardinality and hash
SELECT hll_cardinality(hll_hash(user_id)), approx_count_distinct(user_id), ndv(user_id) FROM events
-- case: hll raw agg
SELECT hll_raw_agg(hll_hash(url)) FROM clicks
-- case: quantile state
SELECT quantile_percent(quantile_union(latency_state), 0.99) FROM service_latency
-- case: array functions
SELECT array_contains([1, 2, 3], 2), array_distinct(tags), array_sort(tags), array_join(tags, ','), size(tags) FROM docs
-- case: array map and filter lambdas
SELECT array_map(x -> x * 2, [1, 2, 3]), array_filter(x -> x > 1, [1, 2, 3]), array_exists(x -> x = 'a', tags) FROM docs
-- case: array slice and element
SELECT tags[1], array_slice(tags, 1, 2), element_at(tags, -1), array_position(tags, 'x') FROM docs
-- case: array agg and collect
SELECT user_id, array_agg(item), collect_list(item), collect_set(item) FROM purchases GROUP BY user_id
-- case: array range and union
SELECT array_range(0, 10, 2), array_union([1, 2], [2, 3]), array_intersect([1, 2], [2, 3]), array_except([1, 2], [2])
-- case: date trunc
SELECT date_trunc(order_time, 'month') AS m, count(*) FROM orders GROUP BY 1 ORDER BY 1
-- case: date trunc unit first
SELECT date_trunc('week', order_time) FROM orders
-- case: date functions
SELECT date_format(now(), '%Y-%m-%d'), datediff(curdate(), '2024-01-01'), date_add(now(), INTERVAL 7 DAY), date_sub(curdate(), INTERVAL 1 MONTH)
-- case: timestamp functions
SELECT unix_timestamp(), from_unixtime(1700000000), timestampdiff(SECOND, start_time, end_time), str_to_date('2024-01-02', '%Y-%m-%d') FROM jobs_log
-- case: week and quarter
SELECT year(dt), quarter(dt), month(dt), weekofyear(dt), dayofweek(dt), last_day(dt), to_date(dt) FROM calendar
-- case: time slice and date ceil
SELECT time_round(ts, 5, 'minute'), minute_floor(ts, 15), hour_ceil(ts), date_floor(ts, INTERVAL 1 HOUR) FROM metrics
-- case: match any inverted index
SELECT * FROM logs WHERE message MATCH_ANY 'timeout error' LIMIT 100
-- case: match all and phrase
SELECT count(*) FROM logs WHERE message MATCH_ALL 'disk full' OR message MATCH_PHRASE 'connection reset by peer'
-- case: match phrase prefix and regexp
SELECT id FROM docs WHERE body MATCH_PHRASE_PREFIX 'doris sea' AND title MATCH_REGEXP '^inv.*'
-- case: match phrase edge
SELECT id FROM docs WHERE body MATCH_PHRASE_EDGE 'ap database'
-- case: match with analyzer
SELECT id FROM docs WHERE body MATCH_ANY 'hello' USING ANALYZER english
-- case: search function
SELECT id FROM docs WHERE search('title:doris AND body:fast')
-- case: json extract
SELECT json_extract(payload, '$.user.id'), json_extract_string(payload, '$.name'), get_json_string(payload, '$.city') FROM raw_events
-- case: json object and array
SELECT json_object('a', 1, 'b', 'two'), json_array(1, 2, 'x'), json_length(payload), json_valid(payload) FROM raw_events
-- case: json contains and keys
SELECT json_contains(payload, '1', '$.ids'), json_keys(payload), jsonb_extract(payload, '$.k') FROM raw_events
-- case: variant subcolumn access
SELECT v['user']['name'], cast(v['age'] AS INT) FROM variant_events WHERE v['kind'] = 'click'
-- case: struct and map
SELECT struct(1, 'a'), named_struct('k', 1), map('a', 1, 'b', 2)['a'], map_keys(m), map_values(m), struct_element(s, 'f1') FROM nested
-- case: string functions
SELECT concat(first_name, ' ', last_name), concat_ws('-', a, b), upper(name), lower(name), length(name), char_length(name), trim(name), lpad(code, 5, '0') FROM people
-- case: replace function call
SELECT replace(phone, '-', ''), regexp_replace(email, '@.*$', ''), regexp_extract(url, 'id=(\\d+)', 1) FROM people
-- case: split and substring index
SELECT split_part(path, '/', 2), substring_index(email, '@', -1), split_by_string(tags, ','), locate('x', name), instr(name, 'y') FROM people
-- case: like and rlike
SELECT * FROM people WHERE name LIKE 'A%' AND email NOT LIKE '%test%' AND phone RLIKE '^[0-9]+$' AND code REGEXP 'X.*'
-- case: like with escape
SELECT * FROM files WHERE name LIKE '100!%%' ESCAPE '!'
-- case: cast and convert
SELECT cast(amount AS DECIMAL(18, 2)), cast('2024-01-01' AS DATE), convert(price, DOUBLE), cast(flag AS BOOLEAN) FROM sales
-- case: try cast
SELECT try_cast(raw AS INT) FROM staging
-- case: if ifnull nullif coalesce
SELECT if(score > 60, 'pass', 'fail'), ifnull(nick, name), nullif(a, b), coalesce(x, y, 0), nvl(x, 0) FROM grades
-- case: math functions
SELECT abs(x), ceil(x), floor(x), round(x, 2), truncate(x, 1), mod(a, b), a % b, a DIV b, pow(2, 10), sqrt(16), ln(10), log10(100) FROM nums
-- case: bit functions
SELECT bitand(a, b), bitor(a, b), bitxor(a, b), bitnot(a), a & b, a | b, a ^ b, ~a FROM flags
-- case: group concat
SELECT dept, group_concat(name ORDER BY name SEPARATOR ', ') FROM staff GROUP BY dept
-- case: group concat distinct
SELECT group_concat(DISTINCT city) FROM addresses
-- case: max by min by any value
SELECT max_by(name, score), min_by(name, score), any_value(name), count_if(score > 90) FROM results
-- case: topn and histogram
SELECT topn(keyword, 10), histogram(latency_ms), retention(dt = '2024-01-01', dt = '2024-01-02') FROM search_log
-- case: window funnel
SELECT user_id, window_funnel(3600, 'default', event_time, event = 'view', event = 'cart', event = 'pay') FROM events GROUP BY user_id
-- case: sequence match and count
SELECT sequence_count('(?1)(?2)', ts, ev = 'a', ev = 'b'), sequence_match('(?1).*(?2)', ts, ev = 'a', ev = 'b') FROM funnel
-- case: ip functions
SELECT ipv4_num_to_string(ip), is_ipv4_string('1.2.3.4'), ipv4_cidr_to_range(to_ipv4('10.0.0.1'), 8) FROM access
-- case: encryption and hash functions
SELECT md5(name), sha2(name, 256), murmur_hash3_32(name), xxhash_64(name), crc32(name) FROM people
-- case: uuid and random
SELECT uuid(), rand(), random(), now(6), current_timestamp(), localtime()
-- case: current user and database
SELECT current_user(), user(), database(), current_catalog(), connection_id(), version(), @@version_comment
-- case: system variables read
SELECT @@query_timeout, @@session.sql_select_limit, @@global.time_zone
-- case: user variable read
SELECT @my_var
-- case: explode numbers table function
SELECT * FROM numbers("number" = "10")
-- case: information schema query
SELECT table_schema, table_name, table_rows FROM information_schema.tables WHERE table_schema NOT IN ('information_schema', '__internal_schema')
-- case: information schema columns
SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'orders' ORDER BY ordinal_position
-- case: audit log query
SELECT query_id, `user`, stmt, query_time FROM __internal_schema.audit_log WHERE `time` > now() - INTERVAL 1 HOUR ORDER BY query_time DESC LIMIT 20
-- case: catalog qualified table
SELECT * FROM hive_catalog.sales_db.orders LIMIT 10
-- case: iceberg time travel
SELECT * FROM iceberg_catalog.db.events FOR TIME AS OF '2024-01-01 00:00:00' LIMIT 10
-- case: iceberg version travel
SELECT count(*) FROM iceberg_catalog.db.events FOR VERSION AS OF 123456789
-- case: tablesample
SELECT avg(price) FROM big_table TABLESAMPLE(10 PERCENT) REPEATABLE 2
-- case: partition and tablet selection
SELECT * FROM logs PARTITION (p20240101, p20240102) WHERE level = 'ERROR'
-- case: temporary partition selection
SELECT count(*) FROM logs TEMPORARY PARTITION (tp1)
-- case: tablet selection
SELECT * FROM logs TABLET (10001, 10002) LIMIT 5
-- case: materialized view index selection
SELECT k1, sum(v) FROM base_table INDEX rollup_k1 GROUP BY k1
-- case: join hints in brackets
SELECT * FROM a JOIN [shuffle] b ON a.k = b.k JOIN [broadcast] c ON b.k = c.k
-- case: interval arithmetic
SELECT order_date + INTERVAL 1 DAY, order_date - INTERVAL '2' HOUR FROM orders
-- case: case expression simple form
SELECT CASE status WHEN 1 THEN 'new' WHEN 2 THEN 'paid' ELSE 'other' END FROM orders
-- case: unnest
SELECT id, t.tag FROM docs, UNNEST(tags) AS t(tag)
-- case: array literal of strings
SELECT ['a', 'b', 'c'] AS letters, {'k': 'v'} AS m
-- case: select star except
SELECT * EXCEPT (password_hash) FROM users
-- case: select star replace
SELECT * REPLACE (upper(name) AS name) FROM users
-- case: bigint and decimal literal suffixes
SELECT 10L, 5S, 1Y, 7BD, 1e3, 2.5E-2, .75
-- case: binary string literals
SELECT X'4D7953514C', BINARY 'abc'
-- case: collate
SELECT name COLLATE utf8mb4_0900_bin FROM people
-- case: regexp with backslashes
SELECT regexp_extract(line, '([0-9]+)\\.([0-9]+)', 1) FROM lines
-- case: escaped newline and tab in string
SELECT 'a\nb\tc', "x\\y"
-- case: like with escaped underscore
SELECT * FROM t WHERE name LIKE 'a\_b%'
