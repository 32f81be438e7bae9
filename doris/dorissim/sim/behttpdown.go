package sim

import "errors"

// SetBEHTTPDown closes (true) or reopens (false) the BE web server alone,
// on the same address: a backend whose HTTP port is dead (connections
// refused) while the FE, the query port and the BE itself, as SHOW
// BACKENDS reports it, keep serving. In Doris the BE webserver and the
// heartbeat service are separate, so a dead webserver leaves the backend
// alive.
func (s *Server) SetBEHTTPDown(down bool) error {
	if s.be == nil {
		return errors.New("sim: the BE web server is not served (Options.BEHTTP is empty)")
	}
	if down {
		s.be.stop()
		return nil
	}
	s.be.mu.Lock()
	running, addr := s.be.srv != nil, s.be.addr
	s.be.mu.Unlock()
	if running {
		return nil
	}
	return s.be.start(addr)
}
