package sim

import "sync"

// accounts are the users clients authenticate with: Options.Users at
// Start, then changed by SetUser and DropUser the way an administrator
// changes accounts in Doris (ALTER USER ... IDENTIFIED BY, DROP USER). As
// in Doris, a change applies to new connections; sessions already open
// keep running.
type accounts struct {
	mu sync.RWMutex // protects m
	m  map[string]string
}

func newAccounts(users map[string]string) *accounts {
	m := make(map[string]string, len(users))
	for u, p := range users {
		m[u] = p
	}
	return &accounts{m: m}
}

// password returns the current password of user.
func (s *Server) password(user string) (string, bool) {
	s.accounts.mu.RLock()
	defer s.accounts.mu.RUnlock()
	pw, ok := s.accounts.m[user]
	return pw, ok
}

// SetUser creates user or changes its password. The caller changes the
// upstream account to match (the simulator logs in upstream as the user).
func (s *Server) SetUser(user, password string) {
	s.accounts.mu.Lock()
	defer s.accounts.mu.Unlock()
	s.accounts.m[user] = password
}

// DropUser removes user: new connections as it are refused.
func (s *Server) DropUser(user string) {
	s.accounts.mu.Lock()
	defer s.accounts.mu.Unlock()
	delete(s.accounts.m, user)
}
