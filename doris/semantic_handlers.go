package doris

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/metricflow"
	"github.com/doris-mcp/doris-mcp-server/doris/ossie"
)

// semanticHandlers binds the children of doris_semantic: four over the
// Apache Ossie registry, eight over the MetricFlow provider. They are
// bound whether or not the providers are enabled; availability reports a
// provider that is off (PROVIDER_NOT_CONFIGURED) or failing (its reason
// code), and the handlers refuse to run without it.
func (r *Runtime) semanticHandlers() map[string]Handler {
	return map[string]Handler{
		"doris_semantic.list_semantic_models":            r.listSemanticModels,
		"doris_semantic.get_semantic_model_summary":      r.getSemanticModelSummary,
		"doris_semantic.get_semantic_context":            r.getSemanticContext,
		"doris_semantic.get_semantic_mapping_status":     r.getSemanticMappingStatus,
		"doris_semantic.list_metricflow_models":          r.listMetricFlowModels,
		"doris_semantic.get_metricflow_status":           r.getMetricFlowStatus,
		"doris_semantic.list_metricflow_metrics":         r.listMetricFlowMetrics,
		"doris_semantic.get_metricflow_group_bys":        r.getMetricFlowGroupBys,
		"doris_semantic.list_metricflow_saved_queries":   r.listMetricFlowSavedQueries,
		"doris_semantic.get_metricflow_dimension_values": r.getMetricFlowDimensionValues,
		"doris_semantic.compile_metricflow_query":        r.compileMetricFlowQuery,
		"doris_semantic.execute_metricflow_query":        r.executeMetricFlowQuery,
	}
}

const semanticPrefix = "SEMANTIC"

// semanticProviders are the semantic layer's providers, opened once.
type semanticProviders struct {
	ossie    *ossie.Registry // nil when Ossie is disabled
	ossieCfg ossie.Config
	mf       *metricflow.Client // nil when MetricFlow is disabled

	mu     sync.Mutex // protects health and check
	health providerHealth
	check  chan struct{} // closed when the health check under way ends; nil when none runs
}

// providerHealth is the last MetricFlow health check, shared by every
// route: the provider does not depend on the caller.
type providerHealth struct {
	outcome string
	until   time.Time
}

// openSemantic loads the Ossie registry and prepares the MetricFlow
// client. A model that does not load fails startup with its reason code.
func openSemantic(cfg *Config) (*semanticProviders, error) {
	s := &semanticProviders{ossieCfg: cfg.Ossie}
	if cfg.Ossie.Enabled {
		reg, err := ossie.Load(cfg.Ossie)
		if err != nil {
			return nil, ossieProblem(err)
		}
		s.ossie = reg
	}
	if cfg.MetricFlow.Enabled {
		mf, err := metricflow.New(cfg.MetricFlow)
		if err != nil {
			return nil, err
		}
		s.mf = mf
	}
	return s, nil
}

// Health probe bounds: a healthy provider is trusted for the capability
// generation; a failing one is asked again after healthRetry. Every route
// shares one answer for healthShare, so a crowd of new routes starts one
// provider process, not one each.
const (
	healthRetry = 30 * time.Second
	healthShare = 10 * time.Second
)

// probeMetricFlow reports the provider's health: it asks the provider
// for its models. A provider that answers in protocol, even with a
// refusal, is available; one that does not is reported with the reason
// code of its failure. The check runs within METRICFLOW_TIMEOUT_SECONDS,
// not the probe's own timeout: a provider that is slow to start (a Python
// process loading a project) is reported as pending while the check goes
// on, and its outcome serves the next discovery.
func (r *Runtime) probeMetricFlow(ctx context.Context) (string, time.Duration) {
	s := r.semantic
	if s.mf == nil {
		return ProbeNotConfigured, 0
	}
	s.mu.Lock()
	if h := s.health; h.outcome != "" && r.now().Before(h.until) {
		s.mu.Unlock()
		return h.outcome, retryOf(h.outcome)
	}
	done := s.check
	if done == nil {
		done = make(chan struct{})
		s.check = done
		go r.checkMetricFlow(done)
	}
	s.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return ProbeUnknown, failedRetry
	}
	s.mu.Lock()
	h := s.health
	s.mu.Unlock()
	return h.outcome, retryOf(h.outcome)
}

// checkMetricFlow runs one health check and publishes its outcome.
func (r *Runtime) checkMetricFlow(done chan struct{}) {
	s := r.semantic
	outcome := ProbeOK
	_, err := s.mf.Do(context.Background(), "list_models", map[string]any{})
	var me *metricflow.Error
	switch {
	case err == nil, errors.As(err, &me) && me.FromProvider:
	case me != nil:
		outcome = me.Reason
	default:
		outcome = metricflow.ReasonFailed
	}
	if outcome != ProbeOK {
		r.log.Warn("the MetricFlow provider failed its health check", "reason", outcome)
	}
	s.mu.Lock()
	s.health, s.check = providerHealth{outcome: outcome, until: r.now().Add(healthShare)}, nil
	s.mu.Unlock()
	close(done)
}

func retryOf(outcome string) time.Duration {
	if outcome == ProbeOK {
		return 0
	}
	return healthRetry
}

// semanticScope refuses a principal without the semantic:read scope.
func semanticScope(c *Call) error {
	if !c.Identity.Can("semantic:read") {
		return &Error{Kind: KindFailed, Reason: "SEMANTIC_SCOPE_REQUIRED", Status: 403,
			Message: "the semantic layer needs the semantic:read scope, which this principal does not have"}
	}
	return nil
}
