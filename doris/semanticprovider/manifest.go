package semanticprovider

import "encoding/json"

// The types below mirror the JSON that dbt writes to
// target/semantic_manifest.json (dbt-semantic-interfaces, the Pydantic
// implementations, from the 0.4 line through the 0.9 line that inlines
// aggregation on simple metrics). Decoding refuses unknown keys, so a field
// that a newer dbt adds, which might change what a metric means, is a load
// error naming its path rather than something silently ignored.
//
// Free-form objects (meta, config, metadata) are kept as raw JSON: they
// carry no semantics the compiler uses, and the strict pre-pass has already
// bounded them.

// Manifest is a dbt semantic manifest.
type Manifest struct {
	SemanticModels       []SemanticModel       `json:"semantic_models"`
	Metrics              []Metric              `json:"metrics"`
	ProjectConfiguration *ProjectConfiguration `json:"project_configuration"`
	SavedQueries         []SavedQuery          `json:"saved_queries"`
}

// SemanticModel is one semantic model: a relation with entities, measures
// and dimensions.
type SemanticModel struct {
	Name          string                 `json:"name"`
	Defaults      *SemanticModelDefaults `json:"defaults"`
	Description   *string                `json:"description"`
	NodeRelation  *NodeRelation          `json:"node_relation"`
	PrimaryEntity *string                `json:"primary_entity"`
	Entities      []Entity               `json:"entities"`
	Measures      []Measure              `json:"measures"`
	Dimensions    []Dimension            `json:"dimensions"`
	Label         *string                `json:"label"`
	Metadata      json.RawMessage        `json:"metadata"`
	Config        json.RawMessage        `json:"config"`
}

// SemanticModelDefaults holds a semantic model's defaults.
type SemanticModelDefaults struct {
	AggTimeDimension *string `json:"agg_time_dimension"`
}

// NodeRelation locates a relation. dbt-doris writes schema_name as the Doris
// database and alias as the table; database is not part of a Doris name.
type NodeRelation struct {
	Alias        string  `json:"alias"`
	SchemaName   string  `json:"schema_name"`
	Database     *string `json:"database"`
	RelationName *string `json:"relation_name"`
}

// Entity is a join key of a semantic model.
type Entity struct {
	Name        string          `json:"name"`
	Description *string         `json:"description"`
	Type        string          `json:"type"`
	Role        *string         `json:"role"`
	Expr        *string         `json:"expr"`
	Metadata    json.RawMessage `json:"metadata"`
	Label       *string         `json:"label"`
	Config      json.RawMessage `json:"config"`
}

// Measure is an aggregation over a semantic model's rows.
type Measure struct {
	Name                 string                `json:"name"`
	Agg                  string                `json:"agg"`
	Description          *string               `json:"description"`
	CreateMetric         *bool                 `json:"create_metric"`
	Expr                 *string               `json:"expr"`
	AggParams            *AggParams            `json:"agg_params"`
	Metadata             json.RawMessage       `json:"metadata"`
	NonAdditiveDimension *NonAdditiveDimension `json:"non_additive_dimension"`
	AggTimeDimension     *string               `json:"agg_time_dimension"`
	Label                *string               `json:"label"`
	Config               json.RawMessage       `json:"config"`
}

// AggParams parameterises percentile aggregations.
type AggParams struct {
	Percentile               *float64 `json:"percentile"`
	UseDiscretePercentile    *bool    `json:"use_discrete_percentile"`
	UseApproximatePercentile *bool    `json:"use_approximate_percentile"`
}

// NonAdditiveDimension marks a semi-additive measure.
type NonAdditiveDimension struct {
	Name            string   `json:"name"`
	WindowChoice    *string  `json:"window_choice"`
	WindowGroupings []string `json:"window_groupings"`
}

// Dimension is a categorical or time attribute of a semantic model.
type Dimension struct {
	Name        string               `json:"name"`
	Description *string              `json:"description"`
	Type        string               `json:"type"`
	IsPartition *bool                `json:"is_partition"`
	TypeParams  *DimensionTypeParams `json:"type_params"`
	Expr        *string              `json:"expr"`
	Metadata    json.RawMessage      `json:"metadata"`
	Label       *string              `json:"label"`
	Config      json.RawMessage      `json:"config"`
}

// DimensionTypeParams holds a time dimension's granularity.
type DimensionTypeParams struct {
	TimeGranularity *string         `json:"time_granularity"`
	ValidityParams  json.RawMessage `json:"validity_params"`
}

// Metric is a named metric of any type.
type Metric struct {
	Name            string           `json:"name"`
	Description     *string          `json:"description"`
	Type            string           `json:"type"`
	TypeParams      MetricTypeParams `json:"type_params"`
	Filter          *WhereFilters    `json:"filter"`
	Metadata        json.RawMessage  `json:"metadata"`
	Label           *string          `json:"label"`
	Config          json.RawMessage  `json:"config"`
	TimeGranularity *string          `json:"time_granularity"`
	// DefaultGranularity is time_granularity's name in
	// dbt-semantic-interfaces 0.6 (dbt-core 1.9 pre-releases).
	DefaultGranularity *string `json:"default_granularity"`
}

// MetricTypeParams holds the type-specific part of a metric.
type MetricTypeParams struct {
	Measure                 *MetricInputMeasure      `json:"measure"`
	Numerator               *MetricInput             `json:"numerator"`
	Denominator             *MetricInput             `json:"denominator"`
	Expr                    *string                  `json:"expr"`
	Window                  *TimeWindow              `json:"window"`
	GrainToDate             *string                  `json:"grain_to_date"`
	Metrics                 []MetricInput            `json:"metrics"`
	ConversionTypeParams    json.RawMessage          `json:"conversion_type_params"`
	CumulativeTypeParams    *CumulativeTypeParams    `json:"cumulative_type_params"`
	InputMeasures           []MetricInputMeasure     `json:"input_measures"`
	MetricAggregationParams *MetricAggregationParams `json:"metric_aggregation_params"`
	JoinToTimespine         *bool                    `json:"join_to_timespine"`
	FillNullsWith           *int64                   `json:"fill_nulls_with"`
	IsPrivate               *bool                    `json:"is_private"`
}

// MetricInputMeasure points a metric at a measure.
type MetricInputMeasure struct {
	Name            string        `json:"name"`
	Filter          *WhereFilters `json:"filter"`
	Alias           *string       `json:"alias"`
	JoinToTimespine *bool         `json:"join_to_timespine"`
	FillNullsWith   *int64        `json:"fill_nulls_with"`
}

// MetricInput points a ratio or derived metric at another metric.
type MetricInput struct {
	Name          string        `json:"name"`
	Filter        *WhereFilters `json:"filter"`
	Alias         *string       `json:"alias"`
	OffsetWindow  *TimeWindow   `json:"offset_window"`
	OffsetToGrain *string       `json:"offset_to_grain"`
}

// TimeWindow is "count granularity", e.g. 1 month.
type TimeWindow struct {
	Count       int64  `json:"count"`
	Granularity string `json:"granularity"`
}

// CumulativeTypeParams holds a cumulative metric's window.
type CumulativeTypeParams struct {
	Window      *TimeWindow  `json:"window"`
	GrainToDate *string      `json:"grain_to_date"`
	PeriodAgg   *string      `json:"period_agg"`
	Metric      *MetricInput `json:"metric"`
}

// MetricAggregationParams is the aggregation of a simple metric written
// without a measure (dbt Fusion, dbt-semantic-interfaces 0.9).
type MetricAggregationParams struct {
	SemanticModel        string                `json:"semantic_model"`
	Agg                  string                `json:"agg"`
	AggParams            *AggParams            `json:"agg_params"`
	AggTimeDimension     *string               `json:"agg_time_dimension"`
	NonAdditiveDimension *NonAdditiveDimension `json:"non_additive_dimension"`
	Expr                 *string               `json:"expr"` // dbt Fusion
}

// WhereFilters is an intersection of where filters. dbt-semantic-interfaces
// before 0.4 wrote a single filter as {"where_sql_template": …}.
type WhereFilters struct {
	WhereFilters     []WhereFilter `json:"where_filters"`
	WhereSQLTemplate *string       `json:"where_sql_template"`
}

// list returns the filters of either form.
func (w *WhereFilters) list() []WhereFilter {
	if w == nil {
		return nil
	}
	out := w.WhereFilters
	if w.WhereSQLTemplate != nil {
		out = append(append([]WhereFilter(nil), out...), WhereFilter{WhereSQLTemplate: *w.WhereSQLTemplate})
	}
	return out
}

// WhereFilter is one filter in MetricFlow's template form.
type WhereFilter struct {
	WhereSQLTemplate string `json:"where_sql_template"`
}

// ProjectConfiguration holds the time spines.
type ProjectConfiguration struct {
	TimeSpineTableConfigurations []TimeSpineTableConfiguration `json:"time_spine_table_configurations"`
	Metadata                     json.RawMessage               `json:"metadata"`
	DsiPackageVersion            json.RawMessage               `json:"dsi_package_version"`
	TimeSpines                   []TimeSpine                   `json:"time_spines"`
}

// TimeSpineTableConfiguration is the legacy time spine form.
type TimeSpineTableConfiguration struct {
	Location   string `json:"location"`
	ColumnName string `json:"column_name"`
	Grain      string `json:"grain"`
}

// TimeSpine is the current time spine form.
type TimeSpine struct {
	NodeRelation        NodeRelation           `json:"node_relation"`
	PrimaryColumn       TimeSpinePrimaryColumn `json:"primary_column"`
	CustomGranularities []CustomGranularity    `json:"custom_granularities"`
}

// CustomGranularity is a column of a time spine that names a
// non-standard period (a fiscal quarter, a retail week).
type CustomGranularity struct {
	Name       string  `json:"name"`
	ColumnName *string `json:"column_name"`
}

// TimeSpinePrimaryColumn is a time spine's base column.
type TimeSpinePrimaryColumn struct {
	Name            string `json:"name"`
	TimeGranularity string `json:"time_granularity"`
}

// SavedQuery is a named, stored query.
type SavedQuery struct {
	Name        string           `json:"name"`
	QueryParams SavedQueryParams `json:"query_params"`
	Description *string          `json:"description"`
	Metadata    json.RawMessage  `json:"metadata"`
	Label       *string          `json:"label"`
	Exports     json.RawMessage  `json:"exports"`
	Config      json.RawMessage  `json:"config"`
	Tags        json.RawMessage  `json:"tags"`
}

// SavedQueryParams are the parameters of a saved query.
type SavedQueryParams struct {
	Metrics []string      `json:"metrics"`
	GroupBy []string      `json:"group_by"`
	Where   *WhereFilters `json:"where"`
	OrderBy []string      `json:"order_by"`
	Limit   *int64        `json:"limit"`
}
