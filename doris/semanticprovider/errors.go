package semanticprovider

import "errors"

// Reason codes. They are the stable part of a refusal: the protocol carries
// only the code, and the code says which rule refused.
const (
	// Protocol and request.
	ReasonRequestInvalid       = "METRICFLOW_REQUEST_INVALID"
	ReasonRequestTooLarge      = "METRICFLOW_REQUEST_TOO_LARGE"
	ReasonProtocolUnsupported  = "METRICFLOW_PROTOCOL_UNSUPPORTED"
	ReasonOperationUnsupported = "METRICFLOW_OPERATION_UNSUPPORTED"
	ReasonDialectUnsupported   = "METRICFLOW_DIALECT_UNSUPPORTED"
	ReasonModelRefInvalid      = "METRICFLOW_MODEL_REF_INVALID"
	ReasonModelNotFound        = "METRICFLOW_MODEL_NOT_FOUND"

	// Manifest.
	ReasonManifestUnreadable = "METRICFLOW_MANIFEST_UNREADABLE"
	ReasonManifestTooLarge   = "METRICFLOW_MANIFEST_TOO_LARGE"
	ReasonManifestInvalid    = "METRICFLOW_MANIFEST_INVALID"

	// One element of a manifest (a semantic model, measure, metric, saved
	// query or time spine), refused alone: the rest of the manifest loads.
	ReasonFieldUnknown    = "METRICFLOW_FIELD_UNKNOWN"    // a key this provider does not read
	ReasonElementInvalid  = "METRICFLOW_ELEMENT_INVALID"  // a malformed or inconsistent element
	ReasonRelationInvalid = "METRICFLOW_RELATION_INVALID" // a relation name that cannot be mapped to Doris

	// Names in a request.
	ReasonMetricNotFound     = "METRICFLOW_METRIC_NOT_FOUND"
	ReasonSavedQueryNotFound = "METRICFLOW_SAVED_QUERY_NOT_FOUND"
	ReasonGroupByInvalid     = "METRICFLOW_GROUP_BY_INVALID"
	ReasonDimensionInvalid   = "METRICFLOW_DIMENSION_INVALID"
	ReasonJoinAmbiguous      = "METRICFLOW_JOIN_AMBIGUOUS"
	ReasonWhereInvalid       = "METRICFLOW_WHERE_INVALID"
	ReasonOrderByInvalid     = "METRICFLOW_ORDER_BY_INVALID"
	ReasonTimeInvalid        = "METRICFLOW_TIME_INVALID"
	ReasonLimitInvalid       = "METRICFLOW_LIMIT_INVALID"

	// What the compiler refuses rather than approximates.
	ReasonGrainUnsupported         = "METRICFLOW_GRAIN_UNSUPPORTED"
	ReasonExpressionUnsupported    = "METRICFLOW_EXPRESSION_UNSUPPORTED"
	ReasonAggregationUnsupported   = "METRICFLOW_AGGREGATION_UNSUPPORTED"
	ReasonNonAdditiveUnsupported   = "METRICFLOW_NON_ADDITIVE_UNSUPPORTED"
	ReasonConversionUnsupported    = "METRICFLOW_CONVERSION_UNSUPPORTED"
	ReasonTimeSpineRequired        = "METRICFLOW_TIME_SPINE_REQUIRED"
	ReasonTimeSpineJoinUnsupported = "METRICFLOW_TIME_SPINE_JOIN_UNSUPPORTED"
	ReasonMetricTimeRequired       = "METRICFLOW_METRIC_TIME_REQUIRED"
	ReasonOffsetUnsupported        = "METRICFLOW_OFFSET_UNSUPPORTED"
	ReasonValidityUnsupported      = "METRICFLOW_SCD_UNSUPPORTED"
	ReasonMetricCycle              = "METRICFLOW_METRIC_CYCLE"
	ReasonQueryTooComplex          = "METRICFLOW_QUERY_TOO_COMPLEX"
	ReasonCompiledSQLRejected      = "METRICFLOW_COMPILED_SQL_REJECTED"
)

// Error is a refusal with a stable reason code. Detail is for the operator
// (the provider writes it to stderr, which the server discards); it never
// holds SQL text.
type Error struct {
	Reason string
	Detail string
}

func (e *Error) Error() string {
	if e.Detail == "" {
		return "semanticprovider: " + e.Reason
	}
	return "semanticprovider: " + e.Reason + ": " + e.Detail
}

// Is reports whether target is an *Error with the same reason.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Reason == e.Reason
}

func fail(reason, detail string) *Error { return &Error{Reason: reason, Detail: detail} }

// ReasonOf returns the reason code of err, or ReasonRequestInvalid when err
// carries none.
func ReasonOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ReasonRequestInvalid
}
