package catalog

// The bounded name sets of the contract, for labels that must never take
// a value a client made up (the server's metrics).

// ChildNames returns every "domain.child" of the contract, in contract
// order.
func ChildNames() []string {
	var out []string
	for _, d := range domains {
		for _, c := range d.Children {
			out = append(out, d.Name+"."+c.Name)
		}
	}
	return out
}

// DomainNames returns the eight domain tool names, in contract order.
func DomainNames() []string {
	out := make([]string, 0, len(domains))
	for _, d := range domains {
		out = append(out, d.Name)
	}
	return out
}

// Outcomes returns every outcome a child call's envelope can have: "OK"
// and the error codes.
func Outcomes() []string {
	return []string{"OK", CodeToolNotFound, CodeManifestStale, CodeArgumentsInvalid, CodeResultInvalid,
		CodeCapabilityUnavailable, CodeExecutionTimeout, CodeExecutionFailed}
}
