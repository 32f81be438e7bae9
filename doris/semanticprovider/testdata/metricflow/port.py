#!/usr/bin/env python3
"""Port MetricFlow's SIMPLE_MODEL and integration test cases as data.

Usage: port.py GIT_DIR > simple_cases.json  (GIT_DIR: a clone of
github.com/dbt-labs/metricflow; the commit is pinned below). Writes
simple_manifest.json next to this script. Needs PyYAML.

The semantic models and metrics are written as dbt writes them to
target/semantic_manifest.json (with dbt-doris's quoting and
$source_schema as mfs); the table snapshots become CREATE TABLE columns
and rows; each case keeps its request and its check query, with
MetricFlow's Jinja macros rendered for MariaDB (see RENDERING).
"""
import json, os, re, subprocess, sys
import yaml

COMMIT = "65b9d4244fb79c6ff431fa8ed49fac3f435ab7f3"
DB = "mfs"
SM = "metricflow_semantics/test_helpers/semantic_manifest_yamls"
SNAP = "tests_metricflow/fixtures/source_table_snapshots"
CASES = "tests_metricflow/integration/test_cases"
RENDERING = ("{{ source_schema }} -> mfs; {{ mf_time_spine_source }} -> mfs.mf_time_spine; "
             "render_time_constraint(x, a, b) -> x >= 'a' AND x <= 'b' (b at the end of its day when it has no time); "
             "render_date_trunc(x, G) -> the start of x's period (weeks start on Monday) as DATETIME; "
             "render_date_sub(t, c, n, G) -> t.c - INTERVAL n G; "
             "double_data_type_name -> DOUBLE; cast_to_ts(x) -> CAST('x' AS DATETIME); "
             "render_dimension_template(x) -> {{ Dimension('x') }} (and Metric, TimeDimension alike)")

git_dir = sys.argv[1]


def show(path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", COMMIT + ":" + path],
                          check=True, capture_output=True, text=True).stdout


def ls(path):
    out = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "--name-only", COMMIT, path + "/"],
                         check=True, capture_output=True, text=True).stdout
    return [l for l in out.splitlines() if l.endswith(".yaml")]


def filt(f):
    if f is None:
        return None
    if isinstance(f, str):
        f = [f]
    return {"where_filters": [{"where_sql_template": x} for x in f]}


def window(s):
    if s is None:
        return None
    n, g = s.split()
    g = g.lower()
    if g.endswith("s") and g != "alien_days":
        g = g[:-1]
    return {"count": int(n), "granularity": g}


def rel(alias):
    return {"alias": alias, "schema_name": DB, "database": None, "relation_name": "`%s`.`%s`" % (DB, alias)}


def model(doc):
    sm = doc["semantic_model"]
    out = {"name": sm["name"], "description": sm.get("description"),
           "defaults": sm.get("defaults"), "node_relation": rel(sm["node_relation"]["alias"]),
           "primary_entity": sm.get("primary_entity"), "entities": [], "measures": [], "dimensions": [],
           "label": None, "metadata": None}
    for e in sm.get("entities") or []:
        out["entities"].append({"name": e["name"], "description": None, "type": e["type"], "role": None,
                                "expr": e.get("expr"), "metadata": None, "label": None})
    for m in sm.get("measures") or []:
        nad = m.get("non_additive_dimension")
        if nad is not None:
            nad = {"name": nad["name"], "window_choice": nad.get("window_choice", "min"),
                   "window_groupings": nad.get("window_groupings") or []}
        ap = m.get("agg_params")
        if ap is not None:
            ap = {"percentile": ap.get("percentile"), "use_discrete_percentile": ap.get("use_discrete_percentile", False),
                  "use_approximate_percentile": ap.get("use_approximate_percentile", False)}
        expr = m.get("expr")
        out["measures"].append({"name": m["name"], "agg": m["agg"], "description": None,
                                "create_metric": bool(m.get("create_metric", False)),
                                "expr": None if expr is None else str(expr), "agg_params": ap, "metadata": None,
                                "non_additive_dimension": nad, "agg_time_dimension": m.get("agg_time_dimension"),
                                "label": None})
    for d in sm.get("dimensions") or []:
        tp = d.get("type_params")
        if tp is not None:
            tp = {"time_granularity": tp.get("time_granularity"), "validity_params": tp.get("validity_params")}
        out["dimensions"].append({"name": d["name"], "description": None, "type": d["type"],
                                  "is_partition": bool(d.get("is_partition", False)), "type_params": tp,
                                  "expr": None if d.get("expr") is None else str(d.get("expr")),
                                  "metadata": None, "label": None})
    return out


def measure_input(m):
    if m is None:
        return None
    if isinstance(m, str):
        m = {"name": m}
    return {"name": m["name"], "filter": filt(m.get("filter")), "alias": m.get("alias"),
            "join_to_timespine": bool(m.get("join_to_timespine", False)), "fill_nulls_with": m.get("fill_nulls_with")}


def metric_input(m):
    if m is None:
        return None
    if isinstance(m, str):
        m = {"name": m}
    return {"name": m["name"], "filter": filt(m.get("filter")), "alias": m.get("alias"),
            "offset_window": window(m.get("offset_window")), "offset_to_grain": m.get("offset_to_grain")}


def metric(doc):
    mt = doc["metric"]
    tp = mt.get("type_params") or {}
    ctp = tp.get("cumulative_type_params")
    if ctp is not None:
        ctp = {"window": window(ctp.get("window")), "grain_to_date": ctp.get("grain_to_date"),
               "period_agg": ctp.get("period_agg", "first"), "metric": None}
    conv = tp.get("conversion_type_params")
    if conv is not None:
        conv = dict(conv)
        conv["base_measure"] = measure_input(conv.get("base_measure"))
        conv["conversion_measure"] = measure_input(conv.get("conversion_measure"))
        conv["window"] = window(conv.get("window"))
        conv.setdefault("calculation", "conversion_rate")
        conv.setdefault("constant_properties", None)
    out_tp = {"measure": measure_input(tp.get("measure")), "numerator": metric_input(tp.get("numerator")),
              "denominator": metric_input(tp.get("denominator")), "expr": tp.get("expr"),
              "window": window(tp.get("window")), "grain_to_date": tp.get("grain_to_date"),
              "metrics": [metric_input(x) for x in tp.get("metrics") or []] or None,
              "conversion_type_params": conv, "cumulative_type_params": ctp, "input_measures": []}
    if tp.get("join_to_timespine") is not None:
        out_tp["join_to_timespine"] = tp["join_to_timespine"]
    if tp.get("fill_nulls_with") is not None:
        out_tp["fill_nulls_with"] = tp["fill_nulls_with"]
    return {"name": mt["name"], "description": mt.get("description"), "type": mt["type"].lower(),
            "type_params": out_tp, "filter": filt(mt.get("filter")), "metadata": None, "label": None,
            "config": None, "time_granularity": mt.get("time_granularity")}


def manifest():
    models, metrics = [], []
    for f in ls(SM + "/simple_manifest/semantic_models"):
        for doc in yaml.safe_load_all(show(f)):
            if doc and "semantic_model" in doc:
                models.append(model(doc))
    for doc in yaml.safe_load_all(show(SM + "/simple_manifest/metrics.yaml")):
        if doc and "metric" in doc:
            metrics.append(metric(doc))
    pc = yaml.safe_load(show(SM + "/shared/project_configuration.yaml"))["project_configuration"]
    spines = []
    for ts in pc.get("time_spines") or []:
        spines.append({"node_relation": rel(ts["node_relation"]["alias"]), "primary_column": ts["primary_column"],
                       "custom_granularities": [{"name": c["name"], "column_name": c.get("column_name")}
                                                for c in ts.get("custom_granularities") or []]})
    return {"semantic_models": models, "metrics": metrics, "saved_queries": [],
            "project_configuration": {"time_spine_table_configurations": [], "time_spines": spines,
                                      "metadata": None, "dsi_package_version": None}}


TYPES = {"STRING": "VARCHAR(64)", "TIME": "DATETIME", "FLOAT": "DOUBLE", "BOOLEAN": "BOOLEAN", "INT": "BIGINT"}


def table(path, days=False):
    snap = yaml.safe_load(show(path))["table_snapshot"]
    cols = snap["column_definitions"]
    out = {"source": path, "columns": ", ".join(c["name"] + " " + TYPES[c["type"]] for c in cols)}
    if days:  # the time spine: its ds column, every day from the first row to the last
        out["columns"] = "ds DATE"
        out["days"] = [snap["rows"][0][0][:10], snap["rows"][-1][0][:10]]
        return snap["table_name"], out
    rows = []
    for r in snap["rows"]:
        row = []
        for c, v in zip(cols, r):
            if v is None:
                row.append(None)
            elif c["type"] == "BOOLEAN":
                row.append(1 if str(v).lower() == "true" else 0)
            elif c["type"] in ("FLOAT", "INT"):
                row.append(float(v) if c["type"] == "FLOAT" else int(v))
            else:
                row.append(str(v))
        rows.append(row)
    out["rows"] = rows
    return snap["table_name"], out


class G:
    def __getattr__(self, name):
        return name.lower()


def date_trunc(x, g):
    forms = {"second": "CAST(DATE_FORMAT({x}, '%Y-%m-%d %H:%i:%s') AS DATETIME)",
             "minute": "CAST(DATE_FORMAT({x}, '%Y-%m-%d %H:%i:00') AS DATETIME)",
             "hour": "CAST(DATE_FORMAT({x}, '%Y-%m-%d %H:00:00') AS DATETIME)",
             "day": "CAST(DATE({x}) AS DATETIME)",
             "week": "CAST(DATE({x}) - INTERVAL WEEKDAY({x}) DAY AS DATETIME)",
             "month": "CAST(DATE_FORMAT({x}, '%Y-%m-01') AS DATETIME)",
             "quarter": "CAST(MAKEDATE(YEAR({x}), 1) + INTERVAL (QUARTER({x}) - 1) QUARTER AS DATETIME)",
             "year": "CAST(DATE_FORMAT({x}, '%Y-01-01') AS DATETIME)"}
    if g not in forms:
        raise Unrenderable()
    return forms[g].replace("{x}", x)


def time_constraint(x, start_time=None, stop_time=None):
    if "{{" in x:
        raise Unrenderable()  # a time constraint on a filter template, not SQL
    conds = []
    if start_time is not None:
        conds.append("%s >= '%s'" % (x, start_time))
    if stop_time is not None:
        if len(stop_time) == 10:
            stop_time += " 23:59:59"
        conds.append("%s <= '%s'" % (x, stop_time))
    return " AND ".join(conds)


class Unrenderable(Exception):
    pass


def unrenderable(*a, **k):
    raise Unrenderable()


ENV = {
    "source_schema": DB, "mf_time_spine_source": DB + ".mf_time_spine", "double_data_type_name": "DOUBLE",
    "TimeGranularity": G(), "DatePart": G(),
    "render_date_trunc": date_trunc, "render_time_constraint": time_constraint,
    "render_date_sub": lambda t, c, n, g: "%s.%s - INTERVAL %s %s" % (t, c, n, g.upper()),
    "render_date_add": unrenderable,
    "cast_to_ts": lambda x: "CAST('%s' AS DATETIME)" % x,
    "render_dimension_template": lambda n, entity_path=None: "{{ Dimension('%s'%s) }}" % (n, "" if not entity_path else ", entity_path=%r" % list(entity_path)),
    "render_time_dimension_template": lambda n, g=None: "{{ TimeDimension('%s'%s) }}" % (n, "" if g is None else ", '%s'" % g),
    "render_entity_template": lambda n, entity_path=None: "{{ Entity('%s') }}" % n,
    "render_metric_template": lambda n, gb: "{{ Metric('%s', group_by=%r) }}" % (n, list(gb)),
    "render_extract": unrenderable, "generate_random_uuid": unrenderable, "render_percentile_expr": unrenderable,
}


def render(s):
    def sub(m):
        try:
            return str(eval(m.group(1), {"__builtins__": {}}, ENV))
        except Unrenderable:
            raise
        except Exception as e:
            sys.stderr.write("cannot render %r: %s\n" % (m.group(1), e))
            raise Unrenderable()
    return re.sub(r"\{\{\s*(.*?)\s*\}\}", sub, s, flags=re.S)


def case(file, doc):
    it = doc["integration_test"]
    if it.get("model") != "SIMPLE_MODEL" or any(it.get(k) for k in ("min_max_only", "allow_empty", "required_features", "saved_query_name")) \
            or it.get("apply_group_by") is False or "metrics" not in it:
        raise Unrenderable()
    req = {"metrics": it["metrics"]}
    for o in it.get("group_by_objs") or []:
        if o.get("date_part"):
            raise Unrenderable()
        req.setdefault("group_by", []).append("__".join(list(o.get("entity_path") or []) + [o["name"]] + ([o["grain"].lower()] if o.get("grain") else [])))
    for k, rk in (("group_bys", "group_by"), ("order_bys", "order_by")):
        if it.get(k):
            req[rk] = req.get(rk, []) + it[k]
    if it.get("where_filter"):
        req["where"] = [render(it["where_filter"])]
    if it.get("time_constraint"):
        req["start_time"], req["end_time"] = it["time_constraint"]
    if it.get("limit") is not None:
        req["limit"] = it["limit"]
    return {"name": it["name"], "source": file, "request": req, "check_query": render(it["check_query"]).strip(),
            "ordered": bool(it.get("check_order", False))}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "simple_manifest.json"), "w") as f:
        json.dump(manifest(), f, indent=1, sort_keys=True)
        f.write("\n")
    tables = {}
    for f in ls(SNAP + "/simple_model"):
        name, t = table(f)
        tables[name] = t
    name, t = table(SNAP + "/time_spine_table/mf_time_spine.yaml", days=True)
    tables[name] = t
    wanted = [l.split() for l in open(os.path.join(here, "simple_cases.txt")) if l.strip() and not l.startswith("#")]
    cases = []
    for w in wanted:
        file, name, expect = w[0], w[1], (w[2] if len(w) > 2 else None)
        for doc in yaml.safe_load_all(show(CASES + "/" + file)):
            if doc and doc["integration_test"]["name"] == name:
                try:
                    c = case(file, doc)
                except Unrenderable:
                    if os.environ.get("PORT_ALL"):
                        break
                    sys.exit("cannot render " + name)
                if expect:
                    c["refused"] = expect
                cases.append(c)
                break
        else:
            if not os.environ.get("PORT_ALL"):
                sys.exit("no case " + file + " " + name)
    json.dump({"source": "github.com/dbt-labs/metricflow@" + COMMIT, "database": DB,
               "manifest": "simple_manifest.json", "rendering": RENDERING, "tables": tables, "cases": cases},
              sys.stdout, indent=1)
    sys.stdout.write("\n")


main()
