package dorisoauth

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Peers exchange the ledger (ledger.go) directly, replica to replica, at
// the addresses in DORIS_OAUTH_PEERS (never through the load balancer,
// never to an address a request named):
//
//   - pull: GET /oauth/peer/ledger?since=N&boot=B returns the entries the
//     peer changed after its sequence N, or all of them if the peer is no
//     longer the instance B (it restarted). Every replica pulls from every
//     peer at Start (so a restarted replica knows every revocation before
//     it serves) and every DORIS_OAUTH_PEER_SYNC_SECONDS.
//   - push: POST /oauth/peer/ledger carries fresh entries. Every change
//     made by a token request (a code exchanged, a refresh, a revocation)
//     is pushed to every peer before the request is answered, waiting at
//     most pushTimeout, so that reachable replicas refuse a superseded or
//     revoked token at once; a change noticed while serving an MCP request
//     (Doris refusing a credential) is pushed in the background. A push
//     that fails is repaired by the next pull.
//
// Requests and responses are authenticated with HMAC-SHA256 under a key
// derived from the shared secret, over the method, path, query, a
// timestamp (within maxPeerSkew) and the body; the response MAC also
// covers the request's timestamp. Replaying a message gains nothing: the
// ledger's join is idempotent and never undoes a revocation.

const (
	peerPath           = "/oauth/peer/ledger"
	startupPullTimeout = 3 * time.Second
	pushTimeout        = 2 * time.Second
	pullTimeout        = 10 * time.Second
	maxPeerSkew        = 120 * time.Second
	maxPeerBody        = 16 << 20
	pullPage           = 5000
	headerPeerTime     = "X-Doris-Oauth-Peer-Time"
	headerPeerMAC      = "X-Doris-Oauth-Peer-Mac"
)

type peerSet struct {
	s      *Server
	boot   string // this instance, random per launch
	client *http.Client
	peers  []*peer
	queue  chan wireEntry
}

type peer struct {
	url string

	mu   sync.Mutex // protects boot, seq, self
	boot string     // the peer instance the sequence belongs to
	seq  uint64
	self bool // the peer is this replica
}

type pullResponse struct {
	Boot    string      `json:"boot"`
	Seq     uint64      `json:"seq"`
	More    bool        `json:"more"`
	Entries []wireEntry `json:"entries"`
}

type pushRequest struct {
	Boot    string      `json:"boot"`
	Entries []wireEntry `json:"entries"`
}

func newPeerSet(s *Server) (*peerSet, error) {
	boot, err := s.keys.randomID(12)
	if err != nil {
		return nil, err
	}
	rt := s.opt.PeerTransport
	if rt == nil {
		rt = &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: time.Minute, ResponseHeaderTimeout: pullTimeout}
	}
	ps := &peerSet{s: s, boot: boot, queue: make(chan wireEntry, 4096),
		client: &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	for _, u := range s.cfg.Peers {
		ps.peers = append(ps.peers, &peer{url: strings.TrimSuffix(u, "/")})
	}
	return ps, nil
}

// run pulls periodically and sends queued pushes until ctx ends.
func (ps *peerSet) run(ctx context.Context) {
	if len(ps.peers) == 0 {
		<-ctx.Done()
		return
	}
	t := time.NewTicker(ps.s.cfg.PeerSync)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			ps.pullAll(ctx, pullTimeout)
		case w := <-ps.queue:
			batch := []wireEntry{w}
		drain:
			for len(batch) < 1000 {
				select {
				case w := <-ps.queue:
					batch = append(batch, w)
				default:
					break drain
				}
			}
			ps.pushAll(ctx, batch)
		}
	}
}

// push queues an entry for the background pusher; a full queue drops it
// (the next pull repairs that).
func (ps *peerSet) push(w wireEntry) {
	if len(ps.peers) == 0 || w.Family == "" {
		return
	}
	select {
	case ps.queue <- w:
	default:
	}
}

// pushNow sends an entry to every peer and waits for them, at most
// pushTimeout.
func (ps *peerSet) pushNow(w wireEntry) {
	if len(ps.peers) == 0 || w.Family == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), pushTimeout)
	defer cancel()
	ps.pushAll(ctx, []wireEntry{w})
}

func (ps *peerSet) pushAll(ctx context.Context, entries []wireEntry) {
	body, _ := json.Marshal(pushRequest{Boot: ps.boot, Entries: entries})
	var wg sync.WaitGroup
	for _, p := range ps.peers {
		if p.isSelf() {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, pushTimeout)
			defer cancel()
			if err := ps.send(pctx, p, body); err != nil {
				ps.s.log.Warn("pushing the token ledger to a peer failed; the next pull repairs it", "peer", p.url)
			}
		}()
	}
	wg.Wait()
}

func (ps *peerSet) send(ctx context.Context, p *peer, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url+peerPath, bytes.NewReader(body))
	if err != nil {
		return err
	}
	ts := strconv.FormatInt(ps.s.now().Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(headerPeerTime, ts)
	req.Header.Set(headerPeerMAC, ps.sign("POST", peerPath, "", ts, string(body)))
	resp, err := ps.client.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		return errors.New("peer refused the push: " + resp.Status)
	}
	return nil
}

// pullAll pulls from every peer concurrently, each within timeout.
func (ps *peerSet) pullAll(ctx context.Context, timeout time.Duration) {
	var wg sync.WaitGroup
	for _, p := range ps.peers {
		if p.isSelf() {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			if err := ps.pull(pctx, p); err != nil && ctx.Err() == nil {
				ps.s.log.Warn("pulling the token ledger from a peer failed", "peer", p.url)
			}
		}()
	}
	wg.Wait()
}

// pull fetches everything p changed since the last pull, page by page.
func (ps *peerSet) pull(ctx context.Context, p *peer) error {
	for range 1000 {
		p.mu.Lock()
		q := url.Values{"since": {strconv.FormatUint(p.seq, 10)}, "boot": {p.boot}}.Encode()
		p.mu.Unlock()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+peerPath+"?"+q, nil)
		if err != nil {
			return err
		}
		ts := strconv.FormatInt(ps.s.now().Unix(), 10)
		req.Header.Set(headerPeerTime, ts)
		req.Header.Set(headerPeerMAC, ps.sign("GET", peerPath, q, ts, ""))
		resp, err := ps.client.Do(req)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxPeerBody+1))
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || len(body) > maxPeerBody {
			return errors.New("peer pull failed")
		}
		if !ps.verify(resp.Header.Get(headerPeerMAC), "RESPONSE", peerPath, q, ts, string(body)) {
			return errors.New("peer response not authenticated")
		}
		var pr pullResponse
		if err := json.Unmarshal(body, &pr); err != nil {
			return errors.New("peer response malformed")
		}
		if pr.Boot == ps.boot {
			p.mu.Lock()
			p.self = true
			p.mu.Unlock()
			return nil
		}
		ps.s.ledger.merge(pr.Entries, ps.s.now().Unix())
		p.mu.Lock()
		p.boot, p.seq = pr.Boot, pr.Seq
		p.mu.Unlock()
		if !pr.More {
			return nil
		}
	}
	return errors.New("peer pull did not finish")
}

func (p *peer) isSelf() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.self
}

// servePull answers a peer's pull.
func (ps *peerSet) servePull(w http.ResponseWriter, r *http.Request) {
	ts := r.Header.Get(headerPeerTime)
	if !ps.fresh(ts) || !ps.verify(r.Header.Get(headerPeerMAC), "GET", peerPath, r.URL.RawQuery, ts, "") {
		writeOAuthError(w, http.StatusUnauthorized, "invalid_client", "peer request not authenticated")
		return
	}
	q, err := parseForm(r.URL.RawQuery)
	since, perr := strconv.ParseUint(q["since"], 10, 64)
	if err != nil || perr != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "bad peer query")
		return
	}
	if q["boot"] != ps.boot {
		since = 0 // the caller knew another instance: send everything
	}
	entries, next, more := ps.s.ledger.since(since, pullPage)
	if entries == nil {
		entries = []wireEntry{}
	}
	body, _ := json.Marshal(pullResponse{Boot: ps.boot, Seq: next, More: more, Entries: entries})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(headerPeerMAC, ps.sign("RESPONSE", peerPath, r.URL.RawQuery, ts, string(body)))
	w.Write(body)
}

// servePush merges a peer's entries.
func (ps *peerSet) servePush(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxPeerBody))
	ts := r.Header.Get(headerPeerTime)
	if err != nil || !ps.fresh(ts) || !ps.verify(r.Header.Get(headerPeerMAC), "POST", peerPath, "", ts, string(body)) {
		writeOAuthError(w, http.StatusUnauthorized, "invalid_client", "peer request not authenticated")
		return
	}
	var pr pushRequest
	if err := json.Unmarshal(body, &pr); err != nil {
		writeOAuthError(w, http.StatusBadRequest, "invalid_request", "bad peer message")
		return
	}
	ps.s.ledger.merge(pr.Entries, ps.s.now().Unix())
	w.WriteHeader(http.StatusNoContent)
}

func (ps *peerSet) sign(method, path, query, ts, body string) string {
	return base64.RawURLEncoding.EncodeToString(ps.s.keys.mac(infoPeer, method, path, query, ts, body))
}

func (ps *peerSet) verify(mac, method, path, query, ts, body string) bool {
	sum, err := base64.RawURLEncoding.Strict().DecodeString(mac)
	return err == nil && len(sum) == 32 && ps.s.keys.verifyMAC(infoPeer, sum, method, path, query, ts, body)
}

// fresh reports whether a peer timestamp is within maxPeerSkew of now.
func (ps *peerSet) fresh(ts string) bool {
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	d := ps.s.now().Sub(time.Unix(t, 0))
	return d < maxPeerSkew && d > -maxPeerSkew
}
