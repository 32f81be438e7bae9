package sim

import (
	"fmt"
	"sort"
	"strings"
)

// Roles:
//
//	CREATE ROLE [IF NOT EXISTS] r [COMMENT 'c']    DROP ROLE [IF EXISTS] r
//	GRANT 'r' [, 'r2'] TO 'user'@'host'           GRANT privs ON obj TO ROLE 'r'
//	SHOW ROLES
//
// All need GRANT_PRIV (the simulator's admins). The built-in roles admin
// and operator always exist. Privileges granted to a role are metadata
// only: the simulator does not apply them upstream.

// rolesCols are the SHOW ROLES columns: the 3.x documentation's list, and
// ShowRolesCommand's newest list from 4.0.
func (p profile) rolesCols() []string {
	if p.atLeast("4.0") {
		return []string{"Name", "Comment", "Users", "GlobalPrivs", "CatalogPrivs", "DatabasePrivs", "TablePrivs",
			"ResourcePrivs", "CloudClusterPrivs", "CloudStagePrivs", "StorageVaultPrivs", "WorkloadGroupPrivs",
			"ComputeGroupPrivs"}
	}
	return []string{"Name", "Comment", "Users", "GlobalPrivs", "CatalogPrivs", "DatabasePrivs", "TablePrivs",
		"ResourcePrivs", "WorkloadGroupPrivs"}
}

func grantDenied() *dorisErr {
	return &dorisErr{1227, "42000", "errCode = 2, detailMessage = Access denied; you need (at least one of) the (GRANT) privilege(s) for this operation"}
}

var builtinRoles = map[string]bool{"admin": true, "operator": true}

// isRoleGrant reports GRANT 'role' TO user and GRANT ... TO ROLE 'r'.
func (c *conn) isRoleGrant(ts []token) bool {
	for k := 1; k+1 < len(ts); k++ {
		if ts[k].is("TO") {
			return ts[k+1].is("ROLE") || ts[1].kind == tkString
		}
	}
	return false
}

func (c *conn) roleExists(name string) (bool, *dorisErr) {
	if builtinRoles[name] {
		return true, nil
	}
	r, err := c.s.adminQuery(fmt.Sprintf("SELECT COUNT(*) FROM `%s`.sim_roles WHERE name = %s", simSchema, quoteString(name)), 1)
	if err != nil || len(r.rows) != 1 {
		return false, metaFailed()
	}
	return deref(r.rows[0][0]) != "0", nil
}

func (c *conn) createRole(ts []token) error {
	if !c.admin {
		return c.send(grantDenied())
	}
	i, ifNotExists := 2, false
	if i+2 < len(ts) && ts[i].is("IF") && ts[i+1].is("NOT") && ts[i+2].is("EXISTS") {
		i, ifNotExists = i+3, true
	}
	if i >= len(ts) || !(ts[i].isIdent() || ts[i].kind == tkString) {
		return c.send(syntaxAt(ts, i, syntaxExpectName))
	}
	name := roleName(ts[i])
	comment := ""
	if i+2 < len(ts) && ts[i+1].is("COMMENT") {
		comment = ts[i+2].str()
	}
	exists, derr := c.roleExists(name)
	if derr != nil {
		return c.send(derr)
	}
	if exists {
		if ifNotExists {
			return c.sendOK(0, "")
		}
		return c.send(newDorisErr(1105, "HY000", "Role "+name+" already exists"))
	}
	if err := c.s.adminExec(fmt.Sprintf("INSERT INTO `%s`.sim_roles VALUES (%s, %s, NOW())", simSchema, quoteString(name), quoteString(comment))); err != nil {
		return c.send(metaFailed())
	}
	return c.sendOK(0, "")
}

func (c *conn) dropRole(ts []token) error {
	if !c.admin {
		return c.send(grantDenied())
	}
	i, ifExists := 2, false
	if i+1 < len(ts) && ts[i].is("IF") && ts[i+1].is("EXISTS") {
		i, ifExists = i+2, true
	}
	if i >= len(ts) {
		return c.send(syntaxAt(ts, i, syntaxExpectName))
	}
	name := roleName(ts[i])
	if builtinRoles[name] {
		return c.send(newDorisErr(1105, "HY000", "Can not drop role "+name))
	}
	exists, derr := c.roleExists(name)
	if derr != nil {
		return c.send(derr)
	}
	if !exists {
		if ifExists {
			return c.sendOK(0, "")
		}
		return c.send(newDorisErr(1105, "HY000", "Role "+name+" does not exist"))
	}
	if err := c.s.adminExec(
		fmt.Sprintf("DELETE FROM `%s`.sim_roles WHERE name = %s", simSchema, quoteString(name)),
		fmt.Sprintf("DELETE FROM `%s`.sim_role_grants WHERE role = %s", simSchema, quoteString(name))); err != nil {
		return c.send(metaFailed())
	}
	return c.sendOK(0, "")
}

func roleName(t token) string {
	if t.kind == tkString {
		return t.str()
	}
	return t.ident()
}

func (c *conn) grantRole(ts []token) error {
	if !c.admin {
		return c.send(grantDenied())
	}
	to := -1
	for k := 1; k < len(ts); k++ {
		if ts[k].is("TO") {
			to = k
			break
		}
	}
	var stmts []string
	if ts[to+1].is("ROLE") {
		// GRANT privs ON target TO ROLE 'r'
		on := -1
		for k := 1; k < to; k++ {
			if ts[k].is("ON") {
				on = k
				break
			}
		}
		if on < 0 || to+2 >= len(ts) {
			return c.send(syntaxAt(ts, to, syntaxExpectName))
		}
		role := roleName(ts[to+2])
		if ok, derr := c.roleExists(role); derr != nil || !ok {
			if derr == nil {
				derr = newDorisErr(1105, "HY000", "role "+role+" does not exist")
			}
			return c.send(derr)
		}
		var privs []string
		for _, t := range ts[1:on] {
			if t.kind == tkWord {
				privs = append(privs, strings.TrimSuffix(strings.ToUpper(t.text), "_PRIV"))
			}
		}
		target := strings.ReplaceAll(join(ts[on+1:to]), "`", "")
		stmts = append(stmts, fmt.Sprintf("REPLACE INTO `%s`.sim_role_grants VALUES (%s, 'priv', %s, %s)", simSchema,
			quoteString(role), quoteString(target), quoteString(strings.Join(dorisPrivs(strings.Join(privs, ","), false), ","))))
	} else {
		// GRANT 'r1', 'r2' TO 'user'@'host'
		user := join(ts[to+1:])
		for _, t := range ts[1:to] {
			if t.kind != tkString && !t.isIdent() {
				continue
			}
			role := roleName(t)
			if ok, derr := c.roleExists(role); derr != nil || !ok {
				if derr == nil {
					derr = newDorisErr(1105, "HY000", "role "+role+" does not exist")
				}
				return c.send(derr)
			}
			stmts = append(stmts, fmt.Sprintf("REPLACE INTO `%s`.sim_role_grants VALUES (%s, 'user', %s, '')", simSchema,
				quoteString(role), quoteString(strings.ReplaceAll(user, "\"", "'"))))
		}
	}
	if err := c.s.adminExec(stmts...); err != nil {
		return c.send(metaFailed())
	}
	return c.sendOK(0, "")
}

func (c *conn) showRoles() error {
	if !c.admin {
		return c.send(grantDenied())
	}
	p := c.s.profile()
	roles, err := c.s.adminQuery(fmt.Sprintf("SELECT name, comment FROM `%s`.sim_roles", simSchema), 10000)
	if err != nil {
		return c.send(metaFailed())
	}
	grants, err := c.s.adminQuery(fmt.Sprintf("SELECT role, kind, target, privs FROM `%s`.sim_role_grants ORDER BY role, kind, target", simSchema), 100000)
	if err != nil {
		return c.send(metaFailed())
	}
	type role struct {
		comment                  any
		users, global, dbs, tbls []string
	}
	all := map[string]*role{
		"admin":    {global: []string{"Admin_priv"}},
		"operator": {users: []string{"'root'@'%'"}, global: []string{"Node_priv", "Admin_priv"}},
	}
	for _, r := range roles.rows {
		all[deref(r[0])] = &role{comment: deref(r[1])}
	}
	for _, g := range grants.rows {
		r := all[deref(g[0])]
		if r == nil {
			continue
		}
		target, privs := deref(g[2]), deref(g[3])
		switch {
		case deref(g[1]) == "user":
			r.users = append(r.users, target)
		case target == "*.*" || target == "*.*.*":
			r.global = append(r.global, privs)
		case strings.HasSuffix(target, ".*"):
			r.dbs = append(r.dbs, "internal."+strings.TrimSuffix(target, ".*")+": "+privs)
		default:
			r.tbls = append(r.tbls, "internal."+target+": "+privs)
		}
	}
	names := make([]string, 0, len(all))
	for n := range all {
		names = append(names, n)
	}
	sort.Strings(names)
	cols := p.rolesCols()
	orNil := func(xs []string, sep string) any {
		if len(xs) == 0 {
			return nil
		}
		return strings.Join(xs, sep)
	}
	var rows [][]any
	for _, n := range names {
		r := all[n]
		vals := map[string]any{"Name": n, "Comment": r.comment, "Users": strings.Join(r.users, ", "),
			"GlobalPrivs": orNil(r.global, ","), "DatabasePrivs": orNil(r.dbs, "; "), "TablePrivs": orNil(r.tbls, "; ")}
		row := make([]any, len(cols))
		for i, col := range cols {
			row[i] = vals[col]
		}
		rows = append(rows, row)
	}
	return c.sendResult(cols, rows)
}
