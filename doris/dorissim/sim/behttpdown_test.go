package sim_test

import (
	"net/http"
	"testing"
	"time"
)

// TestBEHTTPDown: with the BE web server down its port refuses
// connections while the query port and the FE web server keep serving;
// back up, it answers on the same address.
func TestBEHTTPDown(t *testing.T) {
	s, _ := startSim(t, "3.0")
	be, fe := "http://"+s.BEAddr(), "http://"+s.FEAddr()
	hc := &http.Client{Timeout: 5 * time.Second}
	get := func(url string) error {
		resp, err := hc.Get(url)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get(be + "/metrics"); err != nil {
		t.Fatalf("BE before: %v", err)
	}
	if err := s.SetBEHTTPDown(true); err != nil {
		t.Fatal(err)
	}
	if err := get(be + "/metrics"); err == nil {
		t.Fatal("BE web server answered while down")
	}
	if err := get(fe + "/api/health"); err != nil {
		t.Fatalf("FE web server while the BE is down: %v", err)
	}
	mustQuery(t, reader(t, s), "SELECT 1")
	if err := s.SetBEHTTPDown(false); err != nil {
		t.Fatal(err)
	}
	if err := s.SetBEHTTPDown(false); err != nil {
		t.Fatalf("a second SetBEHTTPDown(false): %v, want nil", err)
	}
	if err := get(be + "/metrics"); err != nil {
		t.Fatalf("BE after: %v", err)
	}
}
