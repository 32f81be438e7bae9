// Package ossie loads Apache Ossie semantic models for grounding: a strict,
// bounded loader of local model files and of the operator's private binding
// manifest, validated against the pinned Ossie schema, and the immutable
// registry the semantic children read with exact model references.
//
// The loader reads JSON only. Every file is named by the binding manifest,
// lies inside one absolute, real model directory, is reached without a
// symbolic link, and is read within size, depth and string bounds; duplicate
// keys, control characters, non-finite numbers, a second document, an
// unpinned schema version and unknown members are refused, each with a
// stable reason code (see Error). A model that does not load fails
// startup: the server never runs with half a registry.
//
// YAML is deliberately not read. A correct YAML 1.2 reader is far larger
// than this package, and a subset would accept documents that other tools
// read differently (type resolution, folding), which is worse for a
// security-relevant loader than a clear refusal. Convert YAML models with
// any YAML tool (for example `yq -o=json`). OSSIE_MAX_ALIASES is accepted
// and bounds-checked for compatibility with the reference server; a .yaml
// or .yml file is refused with OSSIE_FILE_TYPE_UNSUPPORTED.
//
// Expressions in a model are grounding metadata: this package never
// compiles or runs them, and refuses those that are not scalar expressions.
// The package imports only the standard library and doris/schema (the
// project's own JSON Schema validator; its verdicts on the Ossie schema are
// checked against kaptinlin/jsonschema in the tests).
package ossie
