package doris

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/doris-mcp/doris-mcp-server/doris/metricflow"
	"github.com/doris-mcp/doris-mcp-server/doris/ossie"
)

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

// Health probe bounds: a healthy provider is trusted for the capability
// generation; a failing one is asked again after healthRetry. Every route
// shares one answer for healthShare, so a crowd of new routes starts one
// provider process, not one each.
const (
	healthRetry = 30 * time.Second
	healthShare = 10 * time.Second
)

// Ossie is the Ossie registry (nil when Ossie is disabled).
func (r *Runtime) Ossie() *ossie.Registry { return r.semantic.ossie }

// OssieConfig is the Ossie configuration.
func (r *Runtime) OssieConfig() ossie.Config { return r.semantic.ossieCfg }

// MetricFlow is the MetricFlow provider's client (nil when disabled).
func (r *Runtime) MetricFlow() *metricflow.Client { return r.semantic.mf }
