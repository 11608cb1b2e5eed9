package chunk

import (
	"go/build"
	"strings"
	"testing"
)

// TestNoInternalImports: the package and its external examples import no
// package internal to this module, so that another module can use
// everything chunk exports (an internal type in the API would need its
// import) and can write what the examples write.
func TestNoInternalImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkg.Imports) == 0 || len(pkg.XTestImports) == 0 {
		t.Fatalf("no imports found: %+v", pkg)
	}
	for _, imports := range [][]string{pkg.Imports, pkg.XTestImports} {
		for _, path := range imports {
			if strings.Contains(path, "/internal/") || strings.HasSuffix(path, "/internal") {
				t.Errorf("chunk imports %s", path)
			}
		}
	}
}
