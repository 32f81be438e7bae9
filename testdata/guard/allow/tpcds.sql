-- case: ds rollup by category and class
select i_category, i_class, sum(ss_ext_sales_price) as sales
from store_sales join item on ss_item_sk = i_item_sk
group by rollup(i_category, i_class)
order by i_category, i_class
limit 100
-- case: ds cube over state and year
select s_state, d_year, sum(ss_net_profit) as profit
from store_sales, store, date_dim
where ss_store_sk = s_store_sk and ss_sold_date_sk = d_date_sk
group by cube(s_state, d_year)
-- case: ds grouping sets with grouping id
select i_brand, i_manufact, grouping(i_brand) as g_brand, grouping_id(i_brand, i_manufact) as gid, count(*)
from item
group by grouping sets ((i_brand, i_manufact), (i_brand), ())
-- case: ds with rollup mysql style
select d_year, d_moy, sum(ws_sales_price) from web_sales join date_dim on ws_sold_date_sk = d_date_sk
group by d_year, d_moy with rollup
-- case: ds rank within category
select * from (
  select i_category, i_item_id, sum(ss_sales_price) as total,
         rank() over (partition by i_category order by sum(ss_sales_price) desc) as rk
  from store_sales join item on ss_item_sk = i_item_sk
  group by i_category, i_item_id
) ranked where rk <= 5
-- case: ds moving average rows frame
select d_date, sum(ss_sales_price) as daily,
       avg(sum(ss_sales_price)) over (order by d_date rows between 6 preceding and current row) as ma7
from store_sales join date_dim on ss_sold_date_sk = d_date_sk
group by d_date
-- case: ds range frame unbounded
select ws_order_number, ws_sales_price,
       sum(ws_sales_price) over (partition by ws_bill_customer_sk order by ws_sold_date_sk range between unbounded preceding and current row) as running
from web_sales
-- case: ds lag lead and first value
select d_week_seq, revenue,
       lag(revenue, 1) over (order by d_week_seq) as prev_week,
       lead(revenue, 1, 0) over (order by d_week_seq) as next_week,
       first_value(revenue) over (order by d_week_seq) as first_week,
       last_value(revenue) over (order by d_week_seq rows between unbounded preceding and unbounded following) as last_week
from weekly_revenue
-- case: ds ntile and percent rank
select c_customer_id, total, ntile(4) over (order by total) as quartile,
       percent_rank() over (order by total) as pr, cume_dist() over (order by total) as cd
from customer_totals
-- case: ds dense rank and row number
select cs_item_sk, dense_rank() over w1 as dr, row_number() over (partition by cs_item_sk order by cs_sold_date_sk) as rn
from catalog_sales
-- case: ds year over year with cte
with year_total as (
  select c_customer_id customer_id, d_year dyear, sum(ss_ext_list_price - ss_ext_discount_amt) year_total
  from customer, store_sales, date_dim
  where c_customer_sk = ss_customer_sk and ss_sold_date_sk = d_date_sk
  group by c_customer_id, d_year
)
select t_s_secyear.customer_id
from year_total t_s_firstyear, year_total t_s_secyear
where t_s_secyear.customer_id = t_s_firstyear.customer_id
  and t_s_firstyear.dyear = 2001 and t_s_secyear.dyear = 2002
  and t_s_secyear.year_total > t_s_firstyear.year_total
order by t_s_secyear.customer_id
limit 100
-- case: ds union all channels
select 'store' as channel, ss_item_sk as item, ss_ext_sales_price as sales from store_sales
union all
select 'catalog' as channel, cs_item_sk, cs_ext_sales_price from catalog_sales
union all
select 'web' as channel, ws_item_sk, ws_ext_sales_price from web_sales
-- case: ds intersect customers
select c_last_name, c_first_name from customer join store_sales on c_customer_sk = ss_customer_sk
intersect
select c_last_name, c_first_name from customer join web_sales on c_customer_sk = ws_bill_customer_sk
-- case: ds except customers
select c_customer_sk from customer
except
select ws_bill_customer_sk from web_sales
-- case: ds minus customers
select c_customer_sk from customer minus select cs_bill_customer_sk from catalog_sales
-- case: ds union distinct parenthesised
(select s_store_id from store where s_state = 'TN') union distinct (select s_store_id from store where s_state = 'GA') order by 1
-- case: ds case bucket counts
select
  case when ss_quantity between 1 and 20 then 'small'
       when ss_quantity between 21 and 40 then 'medium'
       else 'large' end as bucket,
  count(*) as cnt, avg(ss_net_paid) as avg_paid
from store_sales
group by 1
order by 1
-- case: ds having with subquery
select i_item_id, avg(cs_quantity) agg1
from catalog_sales join item on cs_item_sk = i_item_sk
group by i_item_id
having avg(cs_quantity) > (select avg(cs_quantity) * 1.2 from catalog_sales)
-- case: ds correlated scalar subquery
select i_item_id, i_current_price
from item i
where i_current_price > 1.2 * (select avg(j.i_current_price) from item j where j.i_category = i.i_category)
-- case: ds in subquery with join
select count(distinct cs_order_number) from catalog_sales cs1
where cs1.cs_ship_date_sk in (select d_date_sk from date_dim where d_date between '2002-02-01' and date_add('2002-02-01', 60))
-- case: ds left semi and anti joins
select a.k from t1 a left semi join t2 b on a.k = b.k
union all
select a.k from t1 a left anti join t2 b on a.k = b.k
-- case: ds full outer join coalesce
select coalesce(s.item_sk, w.item_sk) as item_sk, s.sales, w.sales
from store_totals s full outer join web_totals w on s.item_sk = w.item_sk
-- case: ds cross join with limit offset
select d1.d_year, d2.d_year from date_dim d1 cross join date_dim d2 limit 10 offset 20
-- case: ds limit comma form
select * from item order by i_item_sk limit 20, 10
-- case: ds qualify clause
select i_category, i_item_id, sum(ss_sales_price) as total
from store_sales join item on ss_item_sk = i_item_sk
group by i_category, i_item_id
qualify row_number() over (partition by i_category order by total desc) <= 3
-- case: ds window partition by multiple
select ss_store_sk, ss_item_sk, ss_sales_price,
  avg(ss_sales_price) over (partition by ss_store_sk, ss_item_sk) as avg_price,
  max(ss_sales_price) over (partition by ss_store_sk) as max_store
from store_sales
-- case: ds stddev and variance
select i_category, stddev_samp(ss_sales_price), variance(ss_sales_price), corr(ss_quantity, ss_sales_price), covar_pop(ss_quantity, ss_sales_price)
from store_sales join item on ss_item_sk = i_item_sk group by i_category
-- case: ds percentile approx
select ss_store_sk, percentile_approx(ss_sales_price, 0.5) as median, percentile(ss_quantity, 0.9) as p90
from store_sales group by ss_store_sk
-- case: ds count distinct multiple
select d_year, count(distinct ss_customer_sk) as customers, count(distinct ss_item_sk, ss_store_sk) as combos
from store_sales join date_dim on ss_sold_date_sk = d_date_sk group by d_year
-- case: ds nested derived tables
select channel, sum(sales) from (
  select channel, sales from (
    select 'web' channel, ws_ext_sales_price sales from web_sales where ws_quantity > 0
  ) x where sales > 10
) y group by channel
-- case: ds not in with nulls guard
select count(*) from customer where c_customer_sk not in (select ss_customer_sk from store_sales where ss_customer_sk is not null)
-- case: ds between dates and is null
select count(*) from store_returns where sr_returned_date_sk between 2451119 and 2451149 and sr_reason_sk is null
-- case: ds sum over empty window
select ss_item_sk, ss_quantity * 100.0 / sum(ss_quantity) over () as share from store_sales
-- case: ds grouping sets with having and order
select s_state, s_county, sum(ss_net_profit) total, grouping(s_state) + grouping(s_county) as lochierarchy
from store_sales join store on ss_store_sk = s_store_sk
group by grouping sets ((s_state, s_county), (s_state), ())
having sum(ss_net_profit) > 0
order by lochierarchy desc, s_state
-- case: ds multiple ctes chained
with wscs as (
  select sold_date_sk, sales_price from (
    select ws_sold_date_sk sold_date_sk, ws_ext_sales_price sales_price from web_sales
    union all
    select cs_sold_date_sk sold_date_sk, cs_ext_sales_price sales_price from catalog_sales
  ) x
),
wswscs as (
  select d_week_seq, sum(case when d_day_name = 'Sunday' then sales_price else null end) sun_sales
  from wscs, date_dim where d_date_sk = sold_date_sk group by d_week_seq
)
select d_week_seq, round(sun_sales, 2) from wswscs order by d_week_seq
-- case: ds recursive cte
with recursive nums (n) as (select 1 union all select n + 1 from nums where n < 10)
select n from nums
-- case: ds cte with column list
with totals (store, amount) as (select ss_store_sk, sum(ss_net_paid) from store_sales group by ss_store_sk)
select store, amount from totals where amount > 1000
-- case: ds parenthesised with cte inside
(with x as (select 1 as a) select a from x)
-- case: ds cte main query parenthesised
with x as (select 1 as a) (select a from x union all select 2)
-- case: ds values inline table
select * from (values (1, 'a'), (2, 'b')) as v(id, name)
-- case: ds exists correlated
select c_customer_id from customer c where exists (select 1 from store_sales s where s.ss_customer_sk = c.c_customer_sk and s.ss_quantity > 50)
-- case: ds sort nulls first last
select i_item_id, i_current_price from item order by i_current_price desc nulls last, i_item_id asc nulls first
