package semanticprovider

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Source is one manifest served under a model ref.
type Source struct {
	Ref  string
	Path string
}

// Provider answers protocol requests for a fixed set of manifests. It
// reads a manifest when a request names it (the server starts one process
// per request), so a manifest that dbt rewrites is picked up by the next
// request.
type Provider struct {
	sources []Source
	byRef   map[string]string
	// misconfigured is a reason every request gets, when the command line
	// was wrong; the provider still speaks the protocol so that the server
	// shows a reason code instead of a failed process.
	misconfigured *Error
}

// reModelRef is the model_ref pattern of the server's input schemas.
var reModelRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.:/@-]+(?:\+[A-Za-z0-9_.-]+)*$`) })

// ValidModelRef reports whether s is a model ref the server accepts.
func ValidModelRef(s string) bool { return len(s) >= 1 && len(s) <= 192 && reModelRef().MatchString(s) }

// ParseSource reads a --manifest value, "REF=PATH" or "PATH" (text before
// the first "=" is a ref when it is a valid model ref that does not start
// with "/" or "."). Without a ref, a path ending in <project>/target/semantic_manifest.json is served
// as <project> (the dbt project's directory name); any other path as its
// file name without ".json".
func ParseSource(v string) (Source, error) {
	ref, path, ok := strings.Cut(v, "=")
	if !ok || !ValidModelRef(ref) || strings.HasPrefix(ref, "/") || strings.HasPrefix(ref, ".") {
		ref, path = "", v // a path (absolute or relative), not REF=PATH
	}
	if path == "" {
		return Source{}, errors.New("empty manifest path")
	}
	if ref == "" {
		ref = defaultRef(path)
	}
	if !ValidModelRef(ref) {
		return Source{}, errors.New("model ref " + ref + " does not match " + reModelRef().String() + "; give one as --manifest REF=PATH")
	}
	return Source{Ref: ref, Path: path}, nil
}

func defaultRef(path string) string {
	clean := filepath.Clean(path)
	base := filepath.Base(clean)
	dir := filepath.Dir(clean)
	if base == "semantic_manifest.json" && filepath.Base(dir) == "target" {
		if project := filepath.Base(filepath.Dir(dir)); project != "." && project != string(filepath.Separator) {
			return project
		}
	}
	return strings.TrimSuffix(base, ".json")
}

// New returns a provider for sources. Refs must be valid and distinct.
func New(sources []Source) (*Provider, error) {
	p := &Provider{byRef: map[string]string{}}
	if len(sources) == 0 {
		return nil, errors.New("no manifest given: use --manifest PATH (or REF=PATH)")
	}
	for _, s := range sources {
		if !ValidModelRef(s.Ref) {
			return nil, errors.New("invalid model ref " + s.Ref)
		}
		if _, dup := p.byRef[s.Ref]; dup {
			return nil, errors.New("model ref " + s.Ref + " is given twice")
		}
		p.byRef[s.Ref] = s.Path
		p.sources = append(p.sources, s)
	}
	return p, nil
}

// Misconfigured returns a provider that answers every request with
// METRICFLOW_PROVIDER_MISCONFIGURED.
func Misconfigured(detail string) *Provider {
	return &Provider{byRef: map[string]string{}, misconfigured: fail(ReasonProviderMisconfigured, detail)}
}

// ReasonProviderMisconfigured is what every request gets when the
// provider's command line is wrong.
const ReasonProviderMisconfigured = "METRICFLOW_PROVIDER_MISCONFIGURED"

// load reads and indexes the manifest of ref.
func (p *Provider) load(ref string) (*index, *Error) {
	path, ok := p.byRef[ref]
	if !ok {
		return nil, fail(ReasonModelNotFound, "no model "+ref)
	}
	data, err := readBounded(path, MaxManifestBytes)
	if err != nil {
		return nil, err
	}
	return parseManifest(data)
}

// readBounded reads at most limit bytes of a regular file.
func readBounded(path string, limit int64) ([]byte, *Error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fail(ReasonManifestUnreadable, "cannot open the manifest")
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return nil, fail(ReasonManifestUnreadable, "the manifest is not a regular file")
	}
	if st.Size() > limit {
		return nil, fail(ReasonManifestTooLarge, "manifest larger than 32 MiB")
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fail(ReasonManifestUnreadable, "cannot read the manifest")
	}
	if int64(len(data)) > limit {
		return nil, fail(ReasonManifestTooLarge, "manifest larger than 32 MiB")
	}
	return data, nil
}

// LoadManifest reads and checks a manifest file, for tools and tests.
func LoadManifest(path string) error {
	data, err := readBounded(path, MaxManifestBytes)
	if err != nil {
		return err
	}
	if _, err := parseManifest(data); err != nil {
		return err
	}
	return nil
}

// CheckManifest checks a manifest document as Load would, for tools and
// tests.
func CheckManifest(data []byte) error {
	if _, err := parseManifest(data); err != nil {
		return err
	}
	return nil
}
