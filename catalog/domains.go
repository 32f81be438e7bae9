package catalog

// domains is the contract table in the reference server's order.
var domains = []*Domain{
	&catalogDomain,
	&queryDomain,
	&clusterDomain,
	&pipelineDomain,
	&searchDomain,
	&governanceDomain,
	&lakehouseDomain,
	&semanticDomain,
}
