package install

// What the cluster tests (package install_test, which may import
// test/framework: it imports this package through pkg/sandbox) use of the
// package's insides.
var (
	ChartKinds      = chartKinds
	Ref             = ref
	NamespaceObject = namespaceObject
	ReleaseObject   = releaseObject
)
