package doris

// semanticHandlers binds the children of doris_semantic that this build runs.
func (r *Runtime) semanticHandlers() map[string]Handler {
	return map[string]Handler{}
}
