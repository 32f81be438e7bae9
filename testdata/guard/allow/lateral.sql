-- case: lateral view explode split
SELECT id, tag FROM docs LATERAL VIEW explode(split(tags, ',')) tmp AS tag
-- case: lateral view explode array
SELECT k1, e1 FROM array_test LATERAL VIEW explode(k2) tmp1 AS e1
-- case: lateral view explode outer
SELECT k1, e1 FROM array_test LATERAL VIEW explode_outer(k2) tmp1 AS e1
-- case: lateral view explode split by string
SELECT k1, e1 FROM t LATERAL VIEW explode_split(k2, ',') tmp1 AS e1 ORDER BY k1, e1
-- case: lateral view explode numbers
SELECT e1 FROM (SELECT 1 k1) AS t LATERAL VIEW explode_numbers(5) tmp1 AS e1
-- case: lateral view explode json array
SELECT k1, e1 FROM t LATERAL VIEW explode_json_array_string('["a","b"]') tmp1 AS e1
-- case: lateral view explode json int
SELECT e1 FROM (SELECT 1 k1) t LATERAL VIEW explode_json_array_int('[1,2,3]') tmp AS e1
-- case: lateral view explode bitmap
SELECT k1, e1 FROM t LATERAL VIEW explode_bitmap(bitmap_col) tmp1 AS e1
-- case: lateral view explode map
SELECT k, v FROM t LATERAL VIEW explode_map(attrs) tmp AS k, v
-- case: two lateral views
SELECT id, a, b FROM t LATERAL VIEW explode(arr1) t1 AS a LATERAL VIEW explode(arr2) t2 AS b
-- case: lateral view in subquery with group by
SELECT tag, count(*) FROM (SELECT tag FROM docs LATERAL VIEW explode(tags) x AS tag) s GROUP BY tag ORDER BY 2 DESC
-- case: posexplode
SELECT id, pos, v FROM t LATERAL VIEW posexplode(arr) tmp AS pos, v
-- case: lateral view with where
SELECT k1, e1 FROM t LATERAL VIEW explode_split(k2, ',') tmp1 AS e1 WHERE e1 <> ''
