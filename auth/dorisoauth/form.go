package dorisoauth

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Request parsing. OAuth parameters must not repeat (RFC 6749 §3.1), so
// url.ParseQuery's "last one wins, or first" is not good enough: a
// repeated parameter is an error, as are invalid UTF-8, control
// characters, too many parameters and oversized bodies.

const (
	maxFormBytes  = 64 << 10 // auxiliary POST bodies (contract section 3)
	maxFormParams = 64
	maxValueBytes = 16 << 10
)

// form is a parsed parameter set.
type form map[string]string

var errForm = errors.New("malformed request parameters")

// parseForm parses an application/x-www-form-urlencoded string (a body or
// a raw query) strictly.
func parseForm(s string) (form, error) {
	if len(s) > maxFormBytes {
		return nil, errors.New("the request parameters are too large")
	}
	f := form{}
	for s != "" {
		var pair string
		pair, s, _ = strings.Cut(s, "&")
		if pair == "" {
			continue
		}
		if strings.Contains(pair, ";") {
			return nil, errForm
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil || key == "" || !cleanText(key) || len(key) > 64 {
			return nil, errForm
		}
		val, err := url.QueryUnescape(v)
		if err != nil || len(val) > maxValueBytes || !cleanText(val) {
			return nil, errForm
		}
		if _, dup := f[key]; dup {
			return nil, errors.New("the parameter " + key + " is repeated")
		}
		if len(f) >= maxFormParams {
			return nil, errors.New("too many request parameters")
		}
		f[key] = val
	}
	return f, nil
}

// cleanText reports whether s is valid UTF-8 without control characters.
func cleanText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x2028 || r == 0x2029 {
			return false
		}
	}
	return true
}

// readForm reads a POST body of type application/x-www-form-urlencoded.
func readForm(w http.ResponseWriter, r *http.Request) (form, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, errors.New("the body must be application/x-www-form-urlencoded")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxFormBytes))
	if err != nil {
		return nil, errors.New("the body is unreadable or larger than 64 KiB")
	}
	return parseForm(string(body))
}

// readJSON reads a JSON object body of at most 64 KiB into v, refusing
// unknown fields only where v says so (it is decoded leniently: RFC 7591
// clients send extension metadata).
func readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		return errors.New("the body must be application/json")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxFormBytes))
	if err != nil {
		return errors.New("the body is unreadable or larger than 64 KiB")
	}
	if !utf8.Valid(body) {
		return errors.New("the body is not UTF-8")
	}
	d := json.NewDecoder(strings.NewReader(string(body)))
	if err := d.Decode(v); err != nil {
		return errors.New("the body is not a valid JSON object of the expected shape")
	}
	if d.More() {
		return errors.New("the body holds more than one JSON value")
	}
	return nil
}

// writeJSON answers with a JSON body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// writeOAuthError answers with an RFC 6749 §5.2 error body.
func writeOAuthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

// tooMany answers a rate-limited request.
func tooMany(w http.ResponseWriter, window int) {
	w.Header().Set("Retry-After", strconv.Itoa(window))
	writeOAuthError(w, http.StatusTooManyRequests, "too_many_requests", "too many requests from this client or address; retry later")
}
