package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Deployment modes. In "cloud" mode (Doris's compute-storage decoupled
// deployment, 3.0 and later) the backends belong to compute groups:
// @@version_comment ends in " (Cloud Mode)", SHOW BACKENDS' Tag names
// the backend's compute group, SHOW COMPUTE GROUPS lists the groups, and
// SHOW PROCESSLIST's CloudCluster column (4.0) says which one a session
// uses. In the default "integrated" mode SHOW COMPUTE GROUPS is refused
// as Doris refuses it.
const (
	DeploymentIntegrated = "integrated"
	DeploymentCloud      = "cloud"
)

// computeGroup is the one compute group of a cloud deployment; the
// simulated backend belongs to it.
const (
	computeGroupName = "compute_cluster"
	computeGroupID   = "Rw9aGvYD"
)

// checkDeployment validates Options.Deployment against a profile.
func checkDeployment(mode string, p profile) error {
	switch mode {
	case "", DeploymentIntegrated:
		return nil
	case DeploymentCloud:
		if !p.atLeast("3.0") {
			return fmt.Errorf("sim: deployment %q needs Doris 3.0 or later (profile %s)", mode, p.version)
		}
		return nil
	}
	return fmt.Errorf("sim: unknown deployment %q (want %q or %q)", mode, DeploymentIntegrated, DeploymentCloud)
}

func (s *Server) cloud() bool { return s.opts.Deployment == DeploymentCloud }

// versionComment is @@version_comment, with Doris's cloud-mode suffix.
func (s *Server) versionComment() string {
	v := s.profile().versionComment()
	if s.cloud() {
		v += " (Cloud Mode)"
	}
	return v
}

// computeGroupName is the compute group sessions use ("" outside cloud
// mode; workload groups then belong to the "default" tag).
func (s *Server) computeGroupName() string {
	if s.cloud() {
		return computeGroupName
	}
	return "default"
}

// cloudCluster is the SHOW PROCESSLIST CloudCluster cell.
func (s *Server) cloudCluster() any {
	if s.cloud() {
		return computeGroupName
	}
	return nil
}

// backendRows are SHOW BACKENDS rows; in cloud mode the Tag names the
// backend's compute group the way Doris prints it.
func (s *Server) backendRows(p profile, now time.Time) [][]any {
	rows := p.backendRows(s.topology(), now, s.runningQueries())
	if !s.cloud() {
		return rows
	}
	tag := fmt.Sprintf(`{"cloud_unique_id" : "1:%s:%s", "compute_group_status" : "NORMAL", "private_endpoint" : "", `+
		`"compute_group_name" : "%s", "location" : "default", "public_endpoint" : "", "compute_group_id" : "%s"}`,
		clusterID, computeGroupID, computeGroupName, computeGroupID)
	cols := p.backendsCols()
	for _, r := range rows {
		for i, c := range cols {
			if c == "Tag" && i < len(r) {
				r[i] = tag
			}
		}
	}
	return rows
}

// showComputeGroups answers SHOW COMPUTE GROUPS as ShowClustersCommand
// does: outside cloud mode ADMIN is checked first, then the command is
// refused; in cloud mode every user sees the groups, non-admins only
// themselves among the users, and nobody but root sees root.
func (c *conn) showComputeGroups(sql string) error {
	p := c.s.profile()
	if !p.atLeast("3.0") {
		return c.send(newDorisErr(1105, "HY000", fmt.Sprintf("\nmismatched input 'COMPUTE' expecting {'ALL', 'ALTER', 'BACKENDS', 'CATALOGS', 'CREATE', 'DATABASES', 'FRONTENDS', 'TABLES', 'VARIABLES'}(line 1, pos %d)", strings.Index(strings.ToUpper(sql), "COMPUTE"))))
	}
	if !c.s.cloud() {
		if !c.admin {
			return c.send(&dorisErr{1227, "42000", "errCode = 2, detailMessage = Access denied; you need (at least one of) the ADMIN privilege(s) for this operation"})
		}
		return c.send(newDorisErr(1105, "HY000", "Command only support in cloud mode."))
	}
	var users []string
	for u := range c.s.opts.Users {
		if u == "root" && c.user != "root" {
			continue
		}
		if !c.admin && u != c.user {
			continue
		}
		users = append(users, u)
	}
	sort.Strings(users)
	return c.sendResult([]string{"Name", "IsCurrent", "Users", "BackendNum"},
		[][]any{{computeGroupName, "TRUE", strings.Join(users, ", "), "1"}})
}
