package governance

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/doris-mcp/doris-mcp-server/doris"
)

// maxUDFs bounds list_udfs.
const maxUDFs = 500

// udfPropertyAllowlist are UDF properties that describe a function, never
// its code or a credential. FILE/OBJECT_FILE are reduced to a bare URL;
// ALIAS_OF/ORIGIN_FUNCTION are SQL and sanitised as such; INLINE_CODE and
// anything else is withheld.
var udfPropertyAllowlist = map[string]bool{"symbol": true, "type": true, "always_nullable": true, "nullable_mode": true,
	"static_load": true, "runtime_version": true, "md5": true, "checksum": true, "id": true, "init_fn": true,
	"update_fn": true, "merge_fn": true, "serialize_fn": true, "finalize_fn": true, "get_value_fn": true,
	"remove_fn": true, "prepare_fn": true, "close_fn": true, "parameter": true, "parameters": true}

// udfProperties reads the Properties of SHOW FULL FUNCTIONS: a JSON object
// (Doris 2.x and 3.x) or "KEY=value, KEY=value" (4.x), keys lower-cased,
// sanitised; withheld counts the properties left out.
func udfProperties(raw string) (props map[string]any, withheld int) {
	kv := map[string]string{}
	raw = strings.TrimSpace(raw)
	var obj map[string]any
	if strings.HasPrefix(raw, "{") && json.Unmarshal([]byte(raw), &obj) == nil {
		for k, v := range obj {
			if s, ok := v.(string); ok {
				kv[strings.ToLower(k)] = s
			} else {
				withheld++
			}
		}
	} else if raw != "" {
		// KEY=value pairs separated by ", "; a value may itself contain
		// ", " (ALIAS_OF), so a piece without '=' belongs to the previous.
		var last string
		for _, piece := range strings.Split(raw, ", ") {
			k, v, ok := strings.Cut(piece, "=")
			if ok && k != "" && strings.ToUpper(k) == k && !strings.ContainsAny(k, " (") {
				last = strings.ToLower(k)
				kv[last] = v
			} else if last != "" {
				kv[last] += ", " + piece
			}
		}
	}
	props = map[string]any{}
	for k, v := range kv {
		switch {
		case k == "file" || k == "object_file":
			if u := doris.SafeURL(v); u != "" {
				props["file"] = u
			} else {
				withheld++
			}
		case k == "alias_of" || k == "origin_function":
			props["alias_of"], _ = doris.SanitizeStatement(v, 512)
		case udfPropertyAllowlist[k] && doris.PlainValue(v):
			props[k] = v
		default:
			withheld++
		}
	}
	return props, withheld
}

// udfLanguage infers the implementation language from the binary type.
func udfLanguage(functionType string, props map[string]any) string {
	t := strings.ToUpper(functionType + " " + strOr(props["type"]))
	switch {
	case strings.Contains(t, "PYTHON"):
		return "python"
	case strings.Contains(t, "JAVA"):
		return "java"
	case strings.Contains(t, "ALIAS"):
		return "sql_alias"
	case strings.Contains(t, "NATIVE"):
		return "native"
	}
	if f := strOr(props["file"]); strings.HasSuffix(f, ".jar") {
		return "java"
	}
	return "unknown"
}

// udfKind reads Function Type: Scalar/Aggregate/Alias (2.x, 3.x) or
// SCALAR/JAVA_UDF, AGGREGATE/..., ALIAS/..., UDTF/... (4.x).
func udfKind(functionType string) string {
	k, _, _ := strings.Cut(strings.ToLower(functionType), "/")
	switch k {
	case "scalar", "aggregate", "alias", "udtf":
		return k
	}
	return "unknown"
}

// ListUDFs runs doris_governance list_udfs.
func ListUDFs(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Database    string `json:"database"`
		Language    string `json:"language"`
		NamePattern string `json:"name_pattern"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	q, scope := "SHOW GLOBAL FULL FUNCTIONS", "global"
	if a.Database != "" {
		if e := doris.CheckIdent(governancePrefix, "database", a.Database); e != nil {
			return nil, e
		}
		q, scope = "SHOW FULL FUNCTIONS IN "+doris.QuoteIdent(a.Database), "database"
	}
	if _, err := doris.Glob(governancePrefix, a.NamePattern, ""); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	t, err := r.Text(ctx, rt, q, maxUDFs, governancePrefix)
	if err != nil {
		return nil, governanceError(err, ctx)
	}
	items := []map[string]any{}
	withheld := 0
	for _, row := range t.Rows {
		sig := t.Get(row, "Signature")
		name, _, _ := strings.Cut(sig, "(")
		if name == "" {
			continue
		}
		if ok, _ := doris.Glob(governancePrefix, a.NamePattern, name); !ok {
			continue
		}
		ftype := t.Get(row, "Function Type")
		props, w := udfProperties(t.Get(row, "Properties"))
		lang := udfLanguage(ftype, props)
		if a.Language != "" && !strings.EqualFold(a.Language, lang) {
			continue
		}
		withheld += w
		var db any
		if scope == "database" {
			db = a.Database
		}
		inter := t.Get(row, "Intermediate Type")
		items = append(items, map[string]any{"name": name, "database": db, "scope": scope, "signature": sig,
			"return_type": doris.Nullable(t, row, "Return Type"), "function_type": doris.StrOrNil(ftype, ftype != ""),
			"kind": udfKind(ftype), "language": lang, "intermediate_type": doris.StrOrNil(inter, inter != "" && inter != "NULL"),
			"properties": props})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i]["signature"].(string) < items[j]["signature"].(string) })
	res := &doris.Result{Status: "success", Data: doris.Collection{Items: items, Truncated: t.Truncated}, Truncated: t.Truncated,
		Source: "SHOW FULL FUNCTIONS"}
	if t.Truncated {
		res.Warnings = append(res.Warnings, "More than 500 functions: narrow with database or name_pattern.")
	}
	if withheld > 0 {
		res.Warnings = append(res.Warnings, doris.Plural(withheld, "function property was", "function properties were")+
			" withheld (code, locations with credentials, or values that are not plain settings).")
	}
	return res, nil
}

// authConfigKeys are the FE settings get_auth_mapping_status reads.
var authConfigKeys = []string{"authentication_type", "ldap_authentication_enabled", "ldap_use_ssl", "ldap_default_roles"}

// roleMappingColumns are information_schema.role_mappings columns whose
// values are names or states, never rules, secrets or claims.
var roleMappingColumns = map[string]bool{"name": true, "mapping_name": true, "integration_name": true, "provider": true,
	"type": true, "role": true, "roles": true, "role_names": true, "target_roles": true, "enabled": true, "is_enabled": true,
	"status": true, "state": true, "create_time": true, "created_time": true, "update_time": true}

// roleMapping keeps a role-mapping row's name-like columns with plain
// values; rules, principals' claims and comments are counted as withheld.
func roleMapping(cols []string, row []doris.NullString) (map[string]any, int) {
	out := map[string]any{}
	withheld := 0
	for i, c := range cols {
		k := strings.ToLower(c)
		v := row[i]
		switch {
		case !v.Valid:
			if roleMappingColumns[k] {
				out[k] = nil
			}
		case roleMappingColumns[k] && doris.PlainValue(v.String):
			out[k] = v.String
		default:
			withheld++
		}
	}
	return out, withheld
}

// GetAuthMappingStatus runs doris_governance get_auth_mapping_status.
func GetAuthMappingStatus(ctx context.Context, c *doris.Call) (*doris.Result, error) {
	r := kitOf(c)
	var a struct {
		Principal    string `json:"principal"`
		Provider     string `json:"provider"`
		IncludeRoles bool   `json:"include_roles"`
	}
	if err := doris.DecodeArgs(c, &a); err != nil {
		return nil, err
	}
	rt, err := r.Route(c.Identity)
	if err != nil {
		return nil, err
	}
	var steps []doris.Step
	for _, key := range authConfigKeys {
		steps = append(steps, doris.Step{Name: key, Run: func(ctx context.Context) (doris.Section, error) {
			t, err := r.Text(ctx, rt, "SHOW FRONTEND CONFIG LIKE '"+key+"'", 4, governancePrefix)
			if err != nil {
				return doris.Section{}, governanceError(err, ctx)
			}
			for _, row := range t.Rows {
				if t.Get(row, "Key") == key {
					return doris.Section{Status: "success", Data: t.Get(row, "Value")}, nil
				}
			}
			return doris.Section{Status: "success"}, nil
		}})
	}
	mappings := c.Variant == "oidc_role_mapping" && a.Provider != "ldap"
	if mappings {
		steps = append(steps, doris.Step{Name: "role_mappings", Run: func(ctx context.Context) (doris.Section, error) {
			t, err := r.Text(ctx, rt, "SELECT * FROM information_schema.role_mappings LIMIT 500", 500, governancePrefix)
			if err != nil {
				return doris.Section{}, governanceError(err, ctx)
			}
			return doris.Section{Status: "success", Data: t}, nil
		}})
	}
	if a.IncludeRoles {
		steps = append(steps, doris.Step{Name: "roles", Run: func(ctx context.Context) (doris.Section, error) {
			t, err := r.Text(ctx, rt, "SHOW ROLES", 500, governancePrefix)
			if err != nil {
				return doris.Section{}, governanceError(err, ctx)
			}
			return doris.Section{Status: "success", Data: t}, nil
		}})
	}
	plan, err := r.RunPlan(ctx, steps)
	if err != nil {
		return nil, err
	}
	status := "success"
	var warnings []string
	evidence := []map[string]any{}
	values := map[string]any{}
	for _, key := range authConfigKeys {
		sec := plan.Sections[key]
		ev := map[string]any{"source": "SHOW FRONTEND CONFIG " + key, "success": sec.Status == "success"}
		switch {
		case sec.Status != "success":
			status = "partial"
			ev["reason_code"] = sec.ReasonCode
			warnings = append(warnings, key+" could not be read ("+sec.ReasonCode+").")
			values[key] = nil
		case sec.Data == nil:
			values[key] = nil // this FE has no such setting
		default:
			if v, ok := doris.ConfigValue(key, sec.Data.(string)); ok {
				values[key] = v
			} else {
				values[key] = nil
				ev["withheld"] = true
				warnings = append(warnings, "The value of "+key+" was withheld: it is not in the shape that setting takes.")
			}
		}
		evidence = append(evidence, ev)
	}
	authType, _ := values["authentication_type"].(string)
	ldapOn, _ := values["ldap_authentication_enabled"].(bool)
	var defaultRoles any
	if v, ok := values["ldap_default_roles"].([]string); ok {
		defaultRoles = strings.Join(v, ",")
	}
	data := map[string]any{
		"authentication_type": values["authentication_type"],
		"ldap": map[string]any{"enabled": values["ldap_authentication_enabled"], "use_ssl": values["ldap_use_ssl"],
			"default_roles": defaultRoles},
		"role_mappings": map[string]any{"available": false, "items": []map[string]any{}},
		"roles":         nil,
		"principal":     doris.StrOrNil(a.Principal, a.Principal != ""),
		"provider":      doris.StrOrNil(a.Provider, a.Provider != ""),
	}
	mappingCount := 0
	if mappings {
		sec := plan.Sections["role_mappings"]
		ev := map[string]any{"source": "information_schema.role_mappings", "success": sec.Status == "success"}
		if sec.Status == "success" {
			t := sec.Data.(*doris.TextRows)
			items := []map[string]any{}
			withheld := 0
			for _, row := range t.Rows {
				m, w := roleMapping(t.Cols, row)
				withheld += w
				items = append(items, m)
			}
			mappingCount = len(items)
			data["role_mappings"] = map[string]any{"available": true, "items": items, "withheld_fields": withheld}
			ev["rows_observed"] = len(t.Rows)
		} else {
			status = "partial"
			ev["reason_code"] = sec.ReasonCode
			warnings = append(warnings, "Role mappings could not be read ("+sec.ReasonCode+").")
			data["role_mappings"] = map[string]any{"available": false, "items": []map[string]any{}, "reason_code": sec.ReasonCode}
		}
		evidence = append(evidence, ev)
	} else {
		reason := "DORIS_VERSION_BELOW_4_1_2"
		if a.Provider == "ldap" {
			reason = "NOT_REQUESTED"
		}
		data["role_mappings"] = map[string]any{"available": false, "items": []map[string]any{}, "reason_code": reason}
	}
	if a.IncludeRoles {
		sec := plan.Sections["roles"]
		ev := map[string]any{"source": "SHOW ROLES", "success": sec.Status == "success"}
		if sec.Status == "success" {
			t := sec.Data.(*doris.TextRows)
			roles := []map[string]any{}
			for _, row := range t.Rows {
				users := doris.SplitNames(strings.ReplaceAll(t.Get(row, "Users"), "'", ""))
				item := map[string]any{"name": t.Get(row, "Name"), "user_count": len(users)}
				if c := t.Get(row, "Comment"); doris.PlainValue(c) {
					item["comment"] = c
				}
				if a.Principal != "" {
					member := false
					for _, u := range users {
						name, _, _ := strings.Cut(u, "@")
						member = member || strings.EqualFold(name, a.Principal)
					}
					item["includes_principal"] = member
				}
				roles = append(roles, item)
			}
			data["roles"] = roles
			ev["rows_observed"] = len(t.Rows)
		} else {
			status = "partial"
			ev["reason_code"] = sec.ReasonCode
			warnings = append(warnings, "Roles could not be read ("+sec.ReasonCode+"); SHOW ROLES needs the GRANT privilege.")
		}
		evidence = append(evidence, ev)
	}
	var ready any
	if values["authentication_type"] != nil || values["ldap_authentication_enabled"] != nil {
		switch a.Provider {
		case "ldap":
			ready = ldapOn || authType == "ldap"
		case "oidc":
			ready = mappingCount > 0
		default:
			ready = ldapOn || authType == "ldap" || mappingCount > 0
		}
	}
	data["ready"] = ready
	return &doris.Result{Status: status, Data: data, Warnings: warnings, Evidence: evidence,
		Source: "doris_authentication_mapping_metadata"}, nil
}
