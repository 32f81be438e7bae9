package dorisoauth

import (
	"encoding/base64"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
)

// The sign-in page. A person enters their Doris user and password; the
// server checks them by connecting to Doris as that user, and on success
// sends an authorization code to the application's registered redirect
// URI.
//
// Cross-site request forgery: GET sets a random value R in a cookie
// (HttpOnly, SameSite=Strict, __Host- over HTTPS) and puts
// MAC(R, transaction id) in the form; POST requires both, and an Origin
// (when the browser sends one) of this server. A page elsewhere can
// neither read R nor set it. The page allows no script, no framing, and
// form submission only to itself and the application's redirect origin.

const (
	csrfCookie       = "doris_login_csrf"
	csrfCookieSecure = "__Host-doris_login_csrf"
	maxPasswordBytes = 1024
)

// userRE is a Doris user name as this page accepts it.
var userRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`) })

// page is what the sign-in template shows.
type page struct {
	Title        string
	ClientName   string
	ClientHost   string
	RedirectHost string
	Loopback     bool
	Access       []string
	Error        string
	TxnID        string
	CSRF         string
	User         string
}

// serveLoginPage answers GET /doris-login?txn_id=...
func (s *Server) serveLoginPage(w http.ResponseWriter, r *http.Request) {
	q, err := parseForm(r.URL.RawQuery)
	if err != nil {
		s.errorPage(w, http.StatusBadRequest, "This sign-in link is malformed. Return to your application and connect again.")
		return
	}
	t, ok := s.openTxn(q["txn_id"])
	if !ok {
		s.errorPage(w, http.StatusBadRequest, "This sign-in link is not valid or has expired. Return to your application and connect again.")
		return
	}
	raw := make([]byte, 32)
	if _, err := s.keys.rand.Read(raw); err != nil {
		s.errorPage(w, http.StatusInternalServerError, "The server could not prepare the sign-in. Try again.")
		return
	}
	cookie := base64.RawURLEncoding.EncodeToString(raw)
	name, path := csrfCookie, "/doris-login"
	if s.secure {
		name, path = csrfCookieSecure, "/"
	}
	http.SetCookie(w, &http.Cookie{Name: name, Value: cookie, Path: path, HttpOnly: true, Secure: s.secure,
		SameSite: http.SameSiteStrictMode, MaxAge: int(time.Unix(t.Exp, 0).Sub(s.now())/time.Second) + 1})
	s.renderLogin(w, r, http.StatusOK, t, q["txn_id"], cookie, "", "")
}

// serveLoginPost answers the sign-in form.
func (s *Server) serveLoginPost(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" && o != s.issuer && !(s.opt.Hosts != nil && s.opt.Hosts.AllowOrigin(o) && o != "null") {
		s.errorPage(w, http.StatusForbidden, "This sign-in form was sent from another site and was refused.")
		return
	}
	if sfs := r.Header.Get("Sec-Fetch-Site"); sfs != "" && sfs != "same-origin" {
		s.errorPage(w, http.StatusForbidden, "This sign-in form was sent from another site and was refused.")
		return
	}
	f, err := readForm(w, r)
	if err != nil {
		s.errorPage(w, http.StatusBadRequest, "The sign-in form could not be read. Return to your application and connect again.")
		return
	}
	t, ok := s.openTxn(f["txn_id"])
	if !ok {
		s.errorPage(w, http.StatusBadRequest, "This sign-in link is not valid or has expired. Return to your application and connect again.")
		return
	}
	cookie := s.csrfCookie(r)
	sum, err := base64.RawURLEncoding.Strict().DecodeString(f["login_csrf"])
	if cookie == "" || err != nil || !s.keys.verifyMAC(infoCSRF, sum, cookie, t.ID) {
		s.errorPage(w, http.StatusForbidden, "This sign-in form is no longer valid (it was opened in another tab, or cookies are blocked). Reload the page and try again.")
		return
	}
	user, password := f["username"], f["password"]
	now := s.now()
	lim := s.cfg.Limits
	if !s.limits.allow("login-ip", s.clientIP(r), lim.LoginPerIP, now) ||
		!s.limits.allow("login-user", strings.ToLower(user), lim.LoginPerUser, now) ||
		!s.limits.allow("login-client", digest(t.Client), lim.LoginPerClient, now) ||
		!s.limits.allow("login-txn", t.ID, lim.LoginPerTxn, now) {
		s.renderLogin(w, r, http.StatusTooManyRequests, t, f["txn_id"], cookie, user, "Too many sign-in attempts. Wait a few minutes, then try again.")
		return
	}
	if !userRE().MatchString(user) || password == "" || len(password) > maxPasswordBytes {
		s.renderLogin(w, r, http.StatusBadRequest, t, f["txn_id"], cookie, user, "Enter your Doris user name and password.")
		return
	}
	switch s.checks.check(r.Context(), s, user, password, true) {
	case credRejected:
		s.log.Info("sign-in refused by Doris", "doris_user", user, "client", digest(t.Client)[:8])
		s.renderLogin(w, r, http.StatusUnauthorized, t, f["txn_id"], cookie, user, "Doris did not accept this user name and password.")
		return
	case credUnavailable:
		s.renderLogin(w, r, http.StatusServiceUnavailable, t, f["txn_id"], cookie, user, "Doris could not be reached to check your password. Try again in a moment.")
		return
	}
	family, err := s.keys.randomID(16)
	if err != nil {
		s.errorPage(w, http.StatusInternalServerError, "The server could not finish the sign-in. Try again.")
		return
	}
	code, err := s.keys.seal(purposeCode, codeClaims{Family: family, Client: digest(t.Client), Redirect: digest(t.Redirect),
		RedirectGiven: t.RedirectGiven, Challenge: t.Challenge, Scope: t.Scope, Resource: t.Resource, User: user,
		Password: password, Auth: now.Unix(), Exp: now.Add(s.cfg.CodeTTL).Unix()})
	if err != nil {
		s.errorPage(w, http.StatusInternalServerError, "The server could not finish the sign-in. Try again.")
		return
	}
	s.log.Info("signed in", "doris_user", user, "client", digest(t.Client)[:8])
	p := url.Values{"code": {code}, "iss": {s.issuer}}
	if t.State != "" {
		p.Set("state", t.State)
	}
	http.Redirect(w, r, redirectWith(t.Redirect, p), http.StatusSeeOther)
}

func (s *Server) csrfCookie(r *http.Request) string {
	name := csrfCookie
	if s.secure {
		name = csrfCookieSecure
	}
	c, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// renderLogin shows the form for transaction t, with an error if any.
func (s *Server) renderLogin(w http.ResponseWriter, r *http.Request, status int, t txnClaims, sealed, cookie, user, msg string) {
	p := page{Title: s.cfg.LoginPageTitle, TxnID: sealed, User: user, Error: msg,
		CSRF: base64.RawURLEncoding.EncodeToString(s.keys.mac(infoCSRF, cookie, t.ID))}
	if c, err := s.resolveClient(r.Context(), t.Client); err == nil {
		p.ClientName = c.Name
		if u, err := url.Parse(c.ID); err == nil && u.Scheme == "https" {
			p.ClientHost = u.Hostname()
		}
	}
	if p.ClientName == "" {
		p.ClientName = "An application"
	}
	if u, err := url.Parse(t.Redirect); err == nil {
		p.RedirectHost = u.Host
		if p.RedirectHost == "" {
			p.RedirectHost = u.Scheme + ":"
		}
		p.Loopback = isLoopbackHost(u.Hostname())
	}
	scopes, _ := parseScope(t.Scope)
	for _, sc := range scopes {
		p.Access = append(p.Access, describeScope(sc))
	}
	var b strings.Builder
	writeLogin(&b, p)
	s.securityHeaders(w, t.Redirect)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, b.String())
}

// securityHeaders forbid scripts, framing and form targets other than
// this server and the application's redirect origin (browsers apply
// form-action to the redirect that follows a submission).
func (s *Server) securityHeaders(w http.ResponseWriter, redirect string) {
	formAction := "'self'"
	if u, err := url.Parse(redirect); err == nil && redirect != "" {
		switch {
		case u.Scheme == "http" || u.Scheme == "https":
			formAction += " " + u.Scheme + "://" + u.Host
		case u.Scheme != "":
			formAction += " " + u.Scheme + ":"
		}
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action "+formAction+
		"; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin") // "no-referrer" would make browsers send Origin: null on the form POST
}

// describeScope says what a scope lets the application do.
func describeScope(sc string) string {
	switch sc {
	case "tool:list":
		return "list the Doris tools and call them"
	case "resource:list":
		return "list table and view resources"
	case "resource:read":
		return "read table and view resources"
	case "semantic:read":
		return "read the semantic model"
	}
	if rest, ok := strings.CutPrefix(sc, "child:call:"); ok {
		return "run " + strings.Replace(rest, ":", ".", 1)
	}
	if rest, ok := strings.CutPrefix(sc, "child:discover:"); ok {
		return "see that " + strings.Replace(rest, ":", ".", 1) + " exists"
	}
	return sc
}

// errorPage shows a message and nothing else.
func (s *Server) errorPage(w http.ResponseWriter, status int, msg string) {
	var b strings.Builder
	writeError(&b, s.cfg.LoginPageTitle, msg)
	s.securityHeaders(w, "")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	io.WriteString(w, b.String())
}

const pageStyle = `<style>
:root{color-scheme:light}
*{box-sizing:border-box}
body{min-height:100vh;margin:0;display:flex;align-items:center;justify-content:center;padding:24px;background:#f3f4f6;color:#1f2937;font:15px/1.5 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,sans-serif}
.card{width:100%;max-width:400px;padding:32px;background:#fff;border-radius:10px;box-shadow:0 2px 10px rgba(0,0,0,.08)}
h1{margin:0 0 4px;font-size:21px;text-align:center}
.sub{margin:0 0 20px;text-align:center;color:#6b7280;font-size:14px}
.client{margin:0 0 18px;padding:12px;border:1px solid #e5e7eb;border-radius:6px;background:#f9fafb;font-size:13px;overflow-wrap:anywhere}
.client strong,.client span{display:block}.client span{color:#6b7280}
.client ul{margin:6px 0 0;padding-left:18px;color:#374151}
.warn{margin-top:8px;color:#92400e;font-weight:600}
label{display:block;margin-bottom:6px;font-size:14px;color:#374151}
input[type=text],input[type=password]{width:100%;margin-bottom:16px;padding:10px;border:1px solid #d1d5db;border-radius:6px;font-size:15px}
input:focus{outline:none;border-color:#2563eb;box-shadow:0 0 0 2px rgba(37,99,235,.2)}
button{width:100%;padding:11px;border:0;border-radius:6px;background:#2563eb;color:#fff;font-size:16px;cursor:pointer}
.error{margin-bottom:16px;padding:10px;border:1px solid #fecaca;border-radius:6px;background:#fef2f2;color:#b91c1c;font-size:14px}
.note{margin:16px 0 0;color:#6b7280;font-size:12px;text-align:center}
</style>`

// The pages are written by hand: every value interpolated into them goes
// through html.EscapeString, which makes it safe both as element text and
// inside a double-quoted attribute (it escapes <, >, &, ' and "); no value
// is ever placed in a script, a style, a URL or an unquoted attribute.
// (html/template would do the same here at the cost of about half a
// megabyte of binary and a template parse at every start.)

const pageHead = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>`

// writeLogin renders the sign-in page of p.
func writeLogin(b *strings.Builder, p page) {
	esc := html.EscapeString
	b.WriteString(pageHead + esc(p.Title) + `</title>` + pageStyle + `</head>
<body><main class="card">
<h1>` + esc(p.Title) + `</h1>
<p class="sub">Sign in with your Apache Doris account</p>
<section class="client" aria-label="Application">
<strong id="client-name">` + esc(p.ClientName) + `</strong>
`)
	if p.ClientHost != "" {
		b.WriteString(`<span>Application site: ` + esc(p.ClientHost) + `</span>`)
	}
	b.WriteString("\n<span>Returns to: " + esc(p.RedirectHost) + "</span>\n")
	if p.Loopback {
		b.WriteString(`<span class="warn" role="note">It returns to a program on this computer: continue only if you just started it.</span>`)
	}
	b.WriteString("\n")
	if len(p.Access) > 0 {
		b.WriteString(`<span>It asks to:</span><ul>`)
		for _, a := range p.Access {
			b.WriteString(`<li>` + esc(a) + `</li>`)
		}
		b.WriteString(`</ul>`)
	}
	b.WriteString("\n</section>\n")
	if p.Error != "" {
		b.WriteString(`<div class="error" role="alert" id="error">` + esc(p.Error) + `</div>`)
	}
	b.WriteString(`
<form method="POST" action="/doris-login" autocomplete="on">
<input type="hidden" name="txn_id" value="` + esc(p.TxnID) + `">
<input type="hidden" name="login_csrf" value="` + esc(p.CSRF) + `">
<label for="username">Doris user</label>
<input type="text" id="username" name="username" value="` + esc(p.User) + `" required autocomplete="username" autocapitalize="none" spellcheck="false">
<label for="password">Password</label>
<input type="password" id="password" name="password" required autocomplete="current-password">
<button type="submit" id="submit">Sign in</button>
</form>
<p class="note">Doris checks your password. This server keeps it only sealed inside the tokens it gives the application, never on disk. Your Doris privileges decide what you can see.</p>
</main></body></html>
`)
}

// writeError renders a page that shows a message and nothing else.
func writeError(b *strings.Builder, title, msg string) {
	esc := html.EscapeString
	b.WriteString(pageHead + esc(title) + `</title>` + pageStyle + `</head>
<body><main class="card"><h1>` + esc(title) + `</h1><p class="sub" role="alert" id="error">` + esc(msg) + `</p></main></body></html>
`)
}
