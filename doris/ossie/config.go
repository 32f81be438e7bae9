package ossie

import (
	"fmt"
	"path/filepath"
)

// Config is the Ossie part of the server configuration (the OSSIE_*
// variables of the reference server). The zero value is not meaningful; use
// DefaultConfig.
type Config struct {
	Enabled         bool   // OSSIE_ENABLED
	ModelDirectory  string // OSSIE_MODEL_DIRECTORY: absolute, real directory
	BindingManifest string // OSSIE_BINDING_MANIFEST: absolute path of the JSON binding manifest

	MaxFileBytes       int // OSSIE_MAX_FILE_BYTES: one model or manifest file
	MaxTotalBytes      int // OSSIE_MAX_TOTAL_BYTES: every file read
	MaxModels          int // OSSIE_MAX_MODELS: model refs in the manifest
	MaxDepth           int // OSSIE_MAX_DEPTH: nesting of objects and arrays
	MaxAliases         int // OSSIE_MAX_ALIASES: YAML aliases (YAML is refused; kept for compatibility)
	MaxStringBytes     int // OSSIE_MAX_STRING_BYTES: one string or member name
	MaxExpressionBytes int // OSSIE_MAX_EXPRESSION_BYTES: one dialect expression

	ContextMaxBytes     int // OSSIE_CONTEXT_MAX_BYTES: default max_bytes of get_semantic_context
	ContextHardMaxBytes int // OSSIE_CONTEXT_HARD_MAX_BYTES: the largest max_bytes a caller may ask for
}

// DefaultConfig returns the reference server's defaults: disabled.
func DefaultConfig() Config {
	return Config{
		MaxFileBytes:        2 << 20,
		MaxTotalBytes:       8 << 20,
		MaxModels:           64,
		MaxDepth:            32,
		MaxAliases:          32,
		MaxStringBytes:      16 << 10,
		MaxExpressionBytes:  4096,
		ContextMaxBytes:     16 << 10,
		ContextHardMaxBytes: 64 << 10,
	}
}

// Validate returns every problem of c, each naming its variable. It checks
// the bounds and the shape of the paths, and reads nothing: Load reads the
// files. Bounds are checked even when Ossie is disabled, as the reference
// server does, so that a typo does not wait for the day it is enabled.
func (c *Config) Validate() []error {
	var errs []error
	bound := func(name string, v, lo, hi int) {
		if v < lo || v > hi {
			errs = append(errs, fmt.Errorf("%s: %d is outside %d..%d", name, v, lo, hi))
		}
	}
	bound("OSSIE_MAX_FILE_BYTES", c.MaxFileBytes, 1024, 64<<20)
	bound("OSSIE_MAX_TOTAL_BYTES", c.MaxTotalBytes, 1024, 256<<20)
	bound("OSSIE_MAX_MODELS", c.MaxModels, 1, 1024)
	bound("OSSIE_MAX_DEPTH", c.MaxDepth, 4, 128)
	bound("OSSIE_MAX_ALIASES", c.MaxAliases, 0, 1024)
	bound("OSSIE_MAX_STRING_BYTES", c.MaxStringBytes, 64, 1<<20)
	bound("OSSIE_MAX_EXPRESSION_BYTES", c.MaxExpressionBytes, 16, 64<<10)
	bound("OSSIE_CONTEXT_HARD_MAX_BYTES", c.ContextHardMaxBytes, 1024, 64<<10)
	bound("OSSIE_CONTEXT_MAX_BYTES", c.ContextMaxBytes, 1024, 64<<10)
	if c.ContextMaxBytes > c.ContextHardMaxBytes {
		errs = append(errs, fmt.Errorf("OSSIE_CONTEXT_MAX_BYTES: %d exceeds OSSIE_CONTEXT_HARD_MAX_BYTES (%d)", c.ContextMaxBytes, c.ContextHardMaxBytes))
	}
	if c.MaxFileBytes > c.MaxTotalBytes {
		errs = append(errs, fmt.Errorf("OSSIE_MAX_FILE_BYTES: %d exceeds OSSIE_MAX_TOTAL_BYTES (%d)", c.MaxFileBytes, c.MaxTotalBytes))
	}
	if !c.Enabled {
		return errs
	}
	if c.ModelDirectory == "" || c.BindingManifest == "" {
		errs = append(errs, fmt.Errorf("OSSIE_ENABLED: %s: OSSIE_MODEL_DIRECTORY and OSSIE_BINDING_MANIFEST are both required", ReasonConfigurationIncomplete))
		return errs
	}
	if !filepath.IsAbs(c.ModelDirectory) {
		errs = append(errs, fmt.Errorf("OSSIE_MODEL_DIRECTORY: %s: %q is not an absolute path", ReasonDirectoryInvalid, c.ModelDirectory))
	}
	if !filepath.IsAbs(c.BindingManifest) {
		errs = append(errs, fmt.Errorf("OSSIE_BINDING_MANIFEST: %s: %q is not an absolute path", ReasonBindingFileInvalid, c.BindingManifest))
	}
	return errs
}

// Reason codes of configuration and file failures.
const (
	ReasonConfigurationIncomplete = "OSSIE_CONFIGURATION_INCOMPLETE"
	ReasonDirectoryInvalid        = "OSSIE_MODEL_DIRECTORY_INVALID"
	ReasonBindingFileInvalid      = "OSSIE_BINDING_FILE_INVALID"
	ReasonBindingFileSize         = "OSSIE_BINDING_FILE_SIZE_INVALID"
	ReasonBindingInvalid          = "OSSIE_BINDING_INVALID"
	ReasonBindingVersion          = "OSSIE_BINDING_VERSION_UNSUPPORTED"
	ReasonFileNotFound            = "OSSIE_MODEL_FILE_NOT_FOUND"
	ReasonFileInvalid             = "OSSIE_MODEL_FILE_INVALID"
	ReasonFileSize                = "OSSIE_MODEL_FILE_SIZE_INVALID"
	ReasonOutsideRoot             = "OSSIE_MODEL_PATH_OUTSIDE_ROOT"
	ReasonSymlink                 = "OSSIE_MODEL_SYMLINK_REJECTED"
	ReasonTotalSize               = "OSSIE_TOTAL_SIZE_LIMIT_EXCEEDED"
	ReasonModelLimit              = "OSSIE_MODEL_LIMIT_EXCEEDED"
	ReasonFileType                = "OSSIE_FILE_TYPE_UNSUPPORTED"
	ReasonEncoding                = "OSSIE_FILE_ENCODING_INVALID"
	ReasonDuplicateKey            = "OSSIE_DUPLICATE_KEY"
	ReasonNesting                 = "OSSIE_NESTING_LIMIT_EXCEEDED"
	ReasonString                  = "OSSIE_STRING_LIMIT_EXCEEDED"
	ReasonControl                 = "OSSIE_CONTROL_CHARACTER_REJECTED"
	ReasonNonFinite               = "OSSIE_NONFINITE_NUMBER_REJECTED"
	ReasonMultipleDocuments       = "OSSIE_MULTIPLE_DOCUMENTS_REJECTED"
	ReasonModelInvalid            = "OSSIE_MODEL_INVALID"
	ReasonVersion                 = "OSSIE_VERSION_UNSUPPORTED"
	ReasonExpressionLimit         = "OSSIE_EXPRESSION_LIMIT_EXCEEDED"
	ReasonExpressionUnsafe        = "OSSIE_EXPRESSION_UNSAFE"
	ReasonDuplicateDialect        = "OSSIE_DUPLICATE_DIALECT"
	ReasonQuerySource             = "OSSIE_QUERY_SOURCE_UNSUPPORTED"
	ReasonDependency              = "SEMANTIC_DEPENDENCY_UNRESOLVED"
	ReasonAmbiguous               = "SEMANTIC_MODEL_AMBIGUOUS"
	ReasonModelNotFound           = "SEMANTIC_MODEL_NOT_FOUND"
)
