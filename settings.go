package main

// The rules of the one configuration loader. Only this package reads the
// environment (and the .env file and the flags); the packages it
// configures take typed structs and check them with their own Validate.
// Every setting of a kind is written the same way, whichever package it
// configures:
//
//   - a duration is a non-negative number in the setting's unit (seconds,
//     unless the name ends in _HOURS): whole or with a decimal fraction,
//     "30" or "1.5"; no sign, exponent or unit suffix;
//   - a size or a count is a whole number in the setting's unit ("4096");
//   - a boolean is true/false, 1/0, yes/no or on/off, in any case;
//   - a list splits on commas and on whitespace alike, and empty elements
//     are dropped ("a.example, b.example c.example" is three);
//   - a string loses its surrounding whitespace; a secret or key is taken
//     verbatim, and messages never repeat it (nor a JSON document).
//
// An empty duration, number or boolean is unset (the default holds); an
// empty string or list is set to empty.

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/doris-mcp/doris-mcp-server/auth"
)

// SettingError is one problem with one setting: the variable, the value
// as given (never for a secret), the flag that gave it, and what is wrong,
// in the setting's own unit:
//
//	QUERY_TIMEOUT="1000": must be between 1 and 300 seconds
type SettingError struct {
	Name  string // the variable, e.g. QUERY_TIMEOUT
	Value string // as given; empty when not given, or a secret
	Flag  string // the flag that gave the value (--doris-port); empty for the variable
	Err   error
}

func (e *SettingError) Error() string {
	msg := e.Err.Error()
	var b strings.Builder
	b.WriteString(e.Name)
	// A message that already quotes the value does not get it twice.
	if e.Value != "" && !strings.Contains(msg, strconv.Quote(e.Value)) {
		b.WriteString("=" + strconv.Quote(shorten(redactUserinfo(e.Value), 80)))
	}
	if e.Flag != "" {
		b.WriteString(" (set by " + e.Flag + ")")
	}
	b.WriteString(": " + msg)
	return b.String()
}

func (e *SettingError) Unwrap() error { return e.Err }

// userinfo is the user information of a URL ("https://user:pw@host").
var userinfo = regexp.MustCompile(`://[^/@\s]*@`)

// redactUserinfo hides the user information of the URLs in s: a URL
// setting refused for carrying credentials must not print them.
func redactUserinfo(s string) string { return userinfo.ReplaceAllString(s, "://…@") }

// shorten cuts s to at most n bytes at a rune boundary, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// unit is the unit of a duration setting.
type unit struct {
	d    time.Duration
	name string // plural, for messages
}

var (
	seconds = unit{time.Second, "seconds"}
	hours   = unit{time.Hour, "hours"}
)

// maxDuration bounds every duration setting (about 100 years), so that a
// value never overflows time.Duration.
const maxDuration = 100 * 365 * 24 * time.Hour

// parseDuration reads a non-negative decimal number of u: "30", "1.5",
// "0.25".
func parseDuration(s string, u unit) (time.Duration, error) {
	bad := fmt.Errorf("must be a number of %s, such as 30 or 1.5", u.name)
	f, ok := parseDecimal(s)
	if !ok {
		return 0, bad
	}
	d := f * float64(u.d)
	if d > float64(maxDuration) {
		return 0, fmt.Errorf("must be at most %s %s", formatNumber(float64(maxDuration)/float64(u.d)), u.name)
	}
	return time.Duration(math.Round(d)), nil
}

// parseDecimal reads digits with an optional decimal fraction: no sign,
// exponent, hexadecimal, underscores, Inf or NaN.
func parseDecimal(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" && frac == "" || !digits(whole) || !digits(frac) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// parseInt reads a whole number (an optional sign, then digits).
func parseInt(s string, bits int) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, bits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, errors.New("is too large")
		}
		return 0, errors.New("must be a whole number")
	}
	return n, nil
}

// parseBool reads true/false, 1/0, yes/no or on/off in any case.
func parseBool(s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "1", "true", "yes", "on":
		return true, nil
	case "0", "false", "no", "off":
		return false, nil
	}
	return false, errors.New("must be true or false (or 1/0, yes/no, on/off)")
}

// splitList splits on commas and whitespace, dropping empty elements.
func splitList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
}

// formatNumber prints f without an exponent or trailing zeros.
func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// betweenErr is the message of a value outside lo..hi of a unit ("" for a
// plain count).
func betweenErr(lo, hi float64, unitName string) error {
	if unitName != "" {
		unitName = " " + unitName
	}
	return fmt.Errorf("must be between %s and %s%s", formatNumber(lo), formatNumber(hi), unitName)
}

// durationBetween checks lo <= d <= hi, reporting the range in u.
func durationBetween(d, lo, hi time.Duration, u unit) error {
	if d < lo || d > hi {
		return betweenErr(float64(lo)/float64(u.d), float64(hi)/float64(u.d), u.name)
	}
	return nil
}

// intBetween checks lo <= n <= hi, reporting the range in unitName.
func intBetween(n, lo, hi int64, unitName string) error {
	if n < lo || n > hi {
		return betweenErr(float64(lo), float64(hi), unitName)
	}
	return nil
}

// origin is where a setting's value came from, for messages.
type origin struct {
	value string // as given; empty for a secret
	flag  string // the flag, when one gave it
}

// loader reads typed settings from an environment, one rule per kind,
// collecting every problem and recording what it looked up (the names of
// the settings) and the values given (for messages).
type loader struct {
	env    map[string]string
	read   map[string]bool
	origin map[string]origin
	errs   []error
}

func newLoader(env map[string]string) *loader {
	return &loader{env: env, read: map[string]bool{}, origin: map[string]origin{}}
}

// lookup returns a setting's value and whether it is set.
func (l *loader) lookup(name string) (string, bool) {
	l.read[name] = true
	v, ok := l.env[name]
	if ok {
		l.origin[name] = origin{value: v}
	}
	return v, ok
}

func (l *loader) fail(name, value string, err error) {
	l.errs = append(l.errs, &SettingError{Name: name, Value: value, Err: err})
}

// failf reports a problem with a setting, naming its value as given.
func (l *loader) failf(name, format string, args ...any) {
	l.fail(name, l.origin[name].value, fmt.Errorf(format, args...))
}

// value returns a value that is set and not blank, as given.
func (l *loader) value(name string) (string, bool) {
	v, ok := l.lookup(name)
	if !ok || strings.TrimSpace(v) == "" {
		return "", false
	}
	return v, true
}

func (l *loader) str(name string, dst *string) bool {
	v, ok := l.lookup(name)
	if ok {
		*dst = strings.TrimSpace(v)
	}
	return ok
}

// document reads a JSON document (trimmed), which messages do not repeat:
// it is long, and its problems point into it.
func (l *loader) document(name string, dst *string) {
	if l.str(name, dst) {
		l.origin[name] = origin{}
	}
}

// secret reads a value verbatim, and never repeats it in a message.
func (l *loader) secret(name string, dst *string) bool {
	v, ok := l.lookup(name)
	if ok {
		*dst = v
		l.origin[name] = origin{}
	}
	return ok
}

func (l *loader) bool(name string, dst *bool) bool {
	v, ok := l.value(name)
	if !ok {
		return false
	}
	b, err := parseBool(v)
	if err != nil {
		l.fail(name, v, err)
		return false
	}
	*dst = b
	return true
}

func (l *loader) int(name string, dst *int) {
	if v, ok := l.value(name); ok {
		if n, err := parseInt(v, strconv.IntSize); err != nil {
			l.fail(name, v, err)
		} else {
			*dst = int(n)
		}
	}
}

func (l *loader) int64(name string, dst *int64) {
	if v, ok := l.value(name); ok {
		if n, err := parseInt(v, 64); err != nil {
			l.fail(name, v, err)
		} else {
			*dst = n
		}
	}
}

func (l *loader) duration(name string, dst *time.Duration, u unit) {
	if v, ok := l.value(name); ok {
		if d, err := parseDuration(v, u); err != nil {
			l.fail(name, v, err)
		} else {
			*dst = d
		}
	}
}

func (l *loader) seconds(name string, dst *time.Duration) { l.duration(name, dst, seconds) }

func (l *loader) float(name string, dst *float64) {
	if v, ok := l.value(name); ok {
		if f, good := parseDecimal(v); !good {
			l.fail(name, v, errors.New("must be a number, such as 0.25"))
		} else {
			*dst = f
		}
	}
}

func (l *loader) list(name string, dst *[]string) bool {
	v, ok := l.lookup(name)
	if ok {
		*dst = splitList(v)
	}
	return ok
}

// explain names the setting of every problem in err and the value it was
// given: the packages' problems name their variable (auth.ConfigError, or
// a "NAME: " prefix), and this package knows the value and where it came
// from. The leaves of a joined error are explained one by one.
func explain(err error, origins map[string]origin, known func(string) bool) error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, explain(e, origins, known))
		}
		return errors.Join(out...)
	}
	var se *SettingError
	var ce *auth.ConfigError
	switch {
	case errors.As(err, &se):
		// Already named; fill in where the value came from.
	case errors.As(err, &ce):
		se = &SettingError{Name: ce.Field, Err: ce.Err}
	default:
		name, rest, ok := strings.Cut(err.Error(), ": ")
		if !ok || !known(name) {
			return err
		}
		_, given := origins[name]
		se = &SettingError{Name: name, Err: &relabelled{msg: inUnitOfSetting(rest, given), err: err}}
	}
	if o, ok := origins[se.Name]; ok && se.Value == "" && se.Flag == "" {
		c := *se
		c.Value, c.Flag = o.value, o.flag
		return &c
	}
	return se
}

// relabelled is a problem restated; it still unwraps to the original.
type relabelled struct {
	msg string
	err error
}

func (r *relabelled) Error() string { return r.msg }
func (r *relabelled) Unwrap() error { return r.err }

// inUnitOfSetting restates a package's "<value> is outside <lo>..<hi>
// <unit>" as "must be between <lo> and <hi> <unit>", once the value as
// given is shown beside it: package doris formats its durations the Go way
// ("16m40s"), which is not how the setting was written.
func inUnitOfSetting(msg string, given bool) string {
	if !given {
		return msg
	}
	if _, rng, ok := strings.Cut(msg, " is outside "); ok && !strings.Contains(msg[:strings.Index(msg, " is outside ")], " ") {
		if lo, hi, ok := strings.Cut(rng, ".."); ok && !strings.ContainsAny(lo, " (") {
			return "must be between " + lo + " and " + hi
		}
		return "must be within " + rng
	}
	if _, least, ok := strings.Cut(msg, " is shorter than "); ok && !strings.Contains(msg[:strings.Index(msg, " is shorter than ")], " ") {
		return "must be at least " + least
	}
	return msg
}

// settingPrefixes are the prefixes of settings specific enough to say
// that a variable was meant for this server. Broader ones (SERVER_, MAX_,
// LOG_, QUERY_) are other programs' too, and PATH is nobody's typo.
var settingPrefixes = []string{"DORIS_", "MCP_", "ENABLE_", "JWT_", "OAUTH_", "TOKEN_", "OSSIE_", "METRICFLOW_",
	"GOVERNANCE_", "LAKEHOUSE_", "CAPABILITY_", "AUDIT_LOG_", "MASKING_"}

// stray is a variable with a setting prefix that is no setting.
type stray struct {
	name  string
	meant string // the setting within two edits of name; empty when none is
}

// typo is the warning of a stray that is a near miss of a setting.
func (s stray) typo() string { return s.name + " is not a setting; did you mean " + s.meant + "?" }

// strayVariables returns, in name order, the variables of env that have a
// setting prefix and are not settings, each with the setting it is
// probably a misspelling of (at most two edits away), if any. Values are
// never looked at.
func strayVariables(env map[string]string) []stray {
	known := knownSettings()
	var out []stray
	for k := range env {
		if isSetting(k) || tokenCompanion(k, env) || !hasSettingPrefix(k) {
			continue
		}
		s := stray{name: k}
		best := 3
		for name := range known {
			if d := editDistance(k, name); d < best || d == best && name < s.meant {
				best, s.meant = d, name
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b stray) int { return strings.Compare(a.name, b.name) })
	return out
}

func hasSettingPrefix(k string) bool {
	for _, p := range settingPrefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// editDistance is the optimal-string-alignment distance of a and b:
// insertions, deletions, substitutions and transpositions of adjacent
// bytes, each one edit.
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
