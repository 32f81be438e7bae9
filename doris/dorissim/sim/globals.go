package sim

import "sync"

// Global variables: SET GLOBAL name = value (an ADMIN statement) sets the
// value that sessions opened afterwards start with, as in Doris, where a
// session copies the global variables when it is created and open
// sessions keep their own. The simulator keeps the globals of the
// variables it owns; enable_profile is the one that changes behaviour: a
// DBA turns it on globally and every later session's queries leave a
// profile (the FE profile API and get_query_profile then find them).
type globalVars struct {
	mu sync.Mutex
	m  map[string]string
}

// setGlobal records a global value.
func (s *Server) setGlobal(name, value string) {
	g := &s.globals
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[string]string{}
	}
	g.m[name] = value
}

// globalOn reports whether a global boolean variable was set true.
func (s *Server) globalOn(name string) bool {
	g := &s.globals
	g.mu.Lock()
	defer g.mu.Unlock()
	return truthy(g.m[name])
}
