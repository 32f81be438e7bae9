package ossie

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Load reads the binding manifest and every model file it names, and
// returns the registry. The first problem found is returned as an *Error
// with its reason code; nothing is partially loaded. Load reads the files
// once, within the configured bounds, and keeps nothing open.
func Load(cfg Config) (*Registry, error) {
	if errs := cfg.Validate(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if !cfg.Enabled {
		return newRegistry(nil), nil
	}
	sch, err := compileSchemas()
	if err != nil {
		return nil, err
	}
	root, err := realDirectory(cfg.ModelDirectory)
	if err != nil {
		return nil, err
	}
	l := &loader{cfg: cfg, root: root, sch: sch, files: map[string]*modelFile{}}
	return l.load()
}

type loader struct {
	cfg   Config
	root  string
	sch   *schemas
	total int
	files map[string]*modelFile // by path relative to root
}

// modelFile is one read, decoded and schema-checked model file.
type modelFile struct {
	rel    string
	digest string
	doc    map[string]any
}

func (l *loader) limits() decodeLimits {
	return decodeLimits{maxDepth: l.cfg.MaxDepth, maxString: l.cfg.MaxStringBytes}
}

func (l *loader) load() (*Registry, error) {
	name := filepath.Base(l.cfg.BindingManifest)
	if err := fileType(name, name); err != nil {
		return nil, err
	}
	raw, err := readRegular(l.cfg.BindingManifest, l.cfg.MaxFileBytes, name, ReasonBindingFileInvalid, ReasonBindingFileSize)
	if err != nil {
		return nil, err
	}
	l.total += len(raw)
	tree, err := decodeStrict(name, raw, l.limits())
	if err != nil {
		return nil, err
	}
	doc, ok := tree.(map[string]any)
	if !ok {
		return nil, fail(ReasonBindingInvalid, name, "the binding manifest is not a JSON object")
	}
	if v, _ := doc["api_version"].(string); v != BindingAPIVersion {
		return nil, fail(ReasonBindingVersion, name, "api_version must be %q", BindingAPIVersion)
	}
	if msg := violation(l.sch.binding, raw); msg != "" {
		return nil, fail(ReasonBindingInvalid, name, "the binding manifest does not match its schema %s", msg)
	}
	sources := doc["model_sources"].(map[string]any)
	if len(sources) > l.cfg.MaxModels {
		return nil, fail(ReasonModelLimit, name, "%d model refs exceed OSSIE_MAX_MODELS (%d)", len(sources), l.cfg.MaxModels)
	}
	refs := make([]string, 0, len(sources))
	for ref := range sources {
		refs = append(refs, ref)
	}
	slices.Sort(refs)
	models := make([]*Model, 0, len(refs))
	for _, ref := range refs {
		src := sources[ref].(map[string]any)
		mf, err := l.modelFile(src["model_file"].(string))
		if err != nil {
			return nil, err
		}
		m, err := buildModel(ref, src, mf, l.cfg)
		if err != nil {
			return nil, err
		}
		models = append(models, m)
	}
	return newRegistry(models), nil
}

// modelFile reads, decodes and checks one model file, once however many
// refs name it.
func (l *loader) modelFile(configured string) (*modelFile, error) {
	path, rel, err := l.resolve(configured)
	if err != nil {
		return nil, err
	}
	if mf, ok := l.files[rel]; ok {
		return mf, nil
	}
	if err := fileType(rel, rel); err != nil {
		return nil, err
	}
	raw, err := readRegular(path, l.cfg.MaxFileBytes, rel, ReasonFileInvalid, ReasonFileSize)
	if err != nil {
		return nil, err
	}
	l.total += len(raw)
	if l.total > l.cfg.MaxTotalBytes {
		return nil, fail(ReasonTotalSize, rel, "the files read so far total %d bytes, more than OSSIE_MAX_TOTAL_BYTES (%d)", l.total, l.cfg.MaxTotalBytes)
	}
	mf, err := parseModelFile(rel, raw, l.limits(), l.sch)
	if err != nil {
		return nil, err
	}
	l.files[rel] = mf
	return mf, nil
}

// parseModelFile decodes and schema-checks one model document.
func parseModelFile(rel string, raw []byte, lim decodeLimits, sch *schemas) (*modelFile, error) {
	tree, err := decodeStrict(rel, raw, lim)
	if err != nil {
		return nil, err
	}
	doc, ok := tree.(map[string]any)
	if !ok {
		return nil, fail(ReasonModelInvalid, rel, "the model file is not a JSON object")
	}
	if v, _ := doc["version"].(string); v != SpecVersion {
		return nil, fail(ReasonVersion, rel, "version must be %q, the Ossie specification version this server reads", SpecVersion)
	}
	if msg := violation(sch.model, raw); msg != "" {
		return nil, fail(ReasonModelInvalid, rel, "the model does not match the Ossie schema %s", msg)
	}
	sum := sha256.Sum256(raw)
	return &modelFile{rel: rel, digest: hex.EncodeToString(sum[:]), doc: doc}, nil
}

// realDirectory checks that dir is an absolute, existing directory reached
// without any symbolic link, and returns it cleaned.
func realDirectory(dir string) (string, error) {
	clean := filepath.Clean(dir)
	bad := func(format string, args ...any) error {
		return fail(ReasonDirectoryInvalid, "", "OSSIE_MODEL_DIRECTORY "+format, args...)
	}
	if !filepath.IsAbs(clean) {
		return "", bad("is not an absolute path")
	}
	fi, err := os.Lstat(clean)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", bad("does not exist")
	case err != nil:
		return "", bad("cannot be read")
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", bad("is a symbolic link; name the real directory")
	case !fi.IsDir():
		return "", bad("is not a directory")
	}
	real, err := filepath.EvalSymlinks(clean)
	if err != nil {
		return "", bad("cannot be resolved")
	}
	if real != clean {
		return "", bad("is reached through a symbolic link; name the real directory %s", real)
	}
	return clean, nil
}

// resolve turns a model_file of the manifest into a path inside the root,
// refusing .. components, paths outside the root and symbolic links on
// the way.
func (l *loader) resolve(configured string) (path, rel string, err error) {
	if strings.ContainsRune(configured, 0) {
		return "", "", fail(ReasonOutsideRoot, "", "a model_file contains a NUL byte")
	}
	for _, part := range strings.FieldsFunc(configured, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
		if part == ".." {
			return "", "", fail(ReasonOutsideRoot, "", "model_file %q contains a .. component", clip(configured))
		}
	}
	cand := configured
	if !filepath.IsAbs(cand) {
		cand = filepath.Join(l.root, cand)
	}
	cand = filepath.Clean(cand)
	r, err := filepath.Rel(l.root, cand)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", "", fail(ReasonOutsideRoot, "", "model_file %q is not inside OSSIE_MODEL_DIRECTORY", clip(configured))
	}
	rel = filepath.ToSlash(r)
	walk := l.root
	for _, part := range strings.Split(r, string(filepath.Separator)) {
		walk = filepath.Join(walk, part)
		fi, err := os.Lstat(walk)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", "", fail(ReasonFileNotFound, rel, "the model file does not exist")
		case err != nil:
			return "", "", fail(ReasonFileInvalid, rel, "the model file cannot be read")
		case fi.Mode()&fs.ModeSymlink != 0:
			return "", "", fail(ReasonSymlink, rel, "the path to the model file goes through a symbolic link")
		}
	}
	return cand, rel, nil
}

// fileType accepts .json and refuses everything else, YAML with a hint.
func fileType(name, file string) error {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return nil
	case ".yaml", ".yml":
		return fail(ReasonFileType, file, "YAML is not read by this server; convert the file to JSON (for example with yq -o=json)")
	}
	return fail(ReasonFileType, file, "Ossie files must be JSON (.json)")
}

// readRegular reads a regular file of 1..max bytes that is not a symbolic
// link. The file opened is checked to be the one inspected, so a swap
// between the check and the read is caught.
func readRegular(path string, max int, name, invalid, size string) ([]byte, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if invalid == ReasonFileInvalid {
			return nil, fail(ReasonFileNotFound, name, "the file does not exist")
		}
		return nil, fail(invalid, name, "the file does not exist")
	case err != nil:
		return nil, fail(invalid, name, "the file cannot be read")
	case fi.Mode()&fs.ModeSymlink != 0:
		if invalid == ReasonFileInvalid {
			return nil, fail(ReasonSymlink, name, "the file is a symbolic link")
		}
		return nil, fail(invalid, name, "the file is a symbolic link")
	case !fi.Mode().IsRegular():
		return nil, fail(invalid, name, "the file is not a regular file")
	case fi.Size() <= 0 || fi.Size() > int64(max):
		return nil, fail(size, name, "the file is %d bytes; it must be 1..%d (OSSIE_MAX_FILE_BYTES)", fi.Size(), max)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fail(invalid, name, "the file cannot be opened")
	}
	defer f.Close()
	if ofi, err := f.Stat(); err != nil || !os.SameFile(fi, ofi) {
		return nil, fail(invalid, name, "the file changed while it was being opened")
	}
	raw, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return nil, fail(invalid, name, "the file cannot be read")
	}
	if len(raw) == 0 || len(raw) > max {
		return nil, fail(size, name, "the file is larger than %d bytes (OSSIE_MAX_FILE_BYTES)", max)
	}
	return raw, nil
}

// canonical is the JSON used for digests: sorted keys, no spaces.
func canonical(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
