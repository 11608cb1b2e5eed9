// Command gen writes the apiparity program, twice: official/ against the
// official client and pulsargo/ against pulsargo, a file per concern in
// each, identical but for the import paths. It uses every name listed in
// names.txt, each with its official type where that can be spelled, so
// that the pulsargo copy compiles only if pulsargo has the name with the
// same type. From the integration module:
//
//	go run ./apiparity/gen        # after adding a line to apiparity/names.txt
//	go run ./apiparity/gen -check # fail if the copies are not up to date
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pulsargo/sdk/integration/apiparity/apinames"
)

func main() {
	dir := flag.String("dir", "apiparity", "the apiparity directory")
	check := flag.Bool("check", false, "compare with the files instead of writing them")
	flag.Parse()
	if err := run(*dir, *check); err != nil {
		fmt.Fprintln(os.Stderr, "apiparity gen:", err)
		os.Exit(1)
	}
}

func run(dir string, check bool) error {
	entries, err := ReadNames(filepath.Join(dir, "names.txt"))
	if err != nil {
		return err
	}
	official, err := Generate(filepath.Dir(dir), entries)
	if err != nil {
		return err
	}
	for _, c := range []struct {
		sub   string
		files map[string][]byte
	}{{"official", official}, {"pulsargo", ToPulsargo(official)}} {
		if err := syncDir(filepath.Join(dir, c.sub), c.files, check); err != nil {
			return err
		}
	}
	return nil
}

// syncDir makes the .go files of dir exactly files (name -> content), or with
// check, reports whether they are.
func syncDir(dir string, files map[string][]byte, check bool) error {
	have, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return err
	}
	for _, path := range have {
		if _, ok := files[filepath.Base(path)]; ok {
			continue
		}
		if check {
			return fmt.Errorf("%s is not generated from names.txt: go run ./apiparity/gen", path)
		}
		if err := os.Remove(path); err != nil {
			return err
		}
	}
	for name, want := range files {
		path := filepath.Join(dir, name)
		if check {
			got, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if !bytes.Equal(got, want) {
				return fmt.Errorf("%s is not up to date with names.txt: go run ./apiparity/gen", path)
			}
			continue
		}
		if err := os.WriteFile(path, want, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Entry is a line of names.txt: a name, in package pulsar unless it is
// written "pulsar/log.Name", and whether it is to be used untyped.
type Entry struct {
	Pkg, Name string
	Untyped   bool
}

// ReadNames reads names.txt: a name per line ("NewDefaultRouter",
// "ClientOptions.URL", "Consumer.AckIDList", "pulsar/log.Logger"); a name
// followed by "untyped" is used without its official type (where
// pulsargo's type differs on purpose; say why in a comment); "#" starts a
// comment.
func ReadNames(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Entry
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		e := Entry{Pkg: "pulsar", Name: fields[0]}
		if i := strings.LastIndex(e.Name, "/"); i >= 0 {
			pkg, name, ok := strings.Cut(e.Name[i:], ".")
			if !ok {
				return nil, fmt.Errorf("%s:%d: %q names no package member", path, n, fields[0])
			}
			e.Pkg, e.Name = e.Name[:i]+pkg, name
		}
		switch {
		case len(fields) == 2 && fields[1] == "untyped":
			e.Untyped = true
		case len(fields) != 1:
			return nil, fmt.Errorf("%s:%d: want a name, optionally followed by \"untyped\"", path, n)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// Generate returns the official copy of the program for entries, a file
// per concern (see fileFor) and main.go, loading the official packages from
// moduleDir.
func Generate(moduleDir string, entries []Entry) (map[string][]byte, error) {
	var paths []string
	for _, p := range apinames.Packages {
		paths = append(paths, apinames.OfficialModule+"/"+p)
	}
	pkgs, err := apinames.Load(moduleDir, paths...)
	if err != nil {
		return nil, err
	}
	type file struct {
		imports map[string]bool
		decls   []string
	}
	byName := map[string]*file{}
	for _, e := range entries {
		pkg := pkgs[apinames.OfficialModule+"/"+e.Pkg]
		if pkg == nil {
			return nil, fmt.Errorf("%s.%s: package %s is not compared", e.Pkg, e.Name, e.Pkg)
		}
		d, err := apinames.Declare(pkg, e.Name, e.Untyped)
		if err != nil {
			return nil, err
		}
		name := fileFor(e)
		f := byName[name]
		if f == nil {
			f = &file{imports: map[string]bool{}}
			byName[name] = f
		}
		for _, p := range d.Imports {
			f.imports[p] = true
		}
		f.decls = append(f.decls, "// "+e.Pkg+"."+e.Name+"\n"+d.Code)
	}
	out := map[string][]byte{}
	for name, f := range byName {
		src, err := source("", f.imports, f.decls)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = src
	}
	doc := "// Command apiparity uses every name of the official Go client's pulsar\n" +
		"// package (and its log, auth, crypto and backoff subpackages) that\n" +
		"// pulsargo has, with the official types, a file per concern; this copy\n" +
		"// and its twin differ only in the import paths, and both must build.\n"
	src, err := source(doc, nil, []string{"func main() {}"})
	if err != nil {
		return nil, fmt.Errorf("main.go: %w", err)
	}
	out["main.go"] = src
	return out, nil
}

// fileConcerns assigns names of package pulsar to files by their first
// identifier's prefix, first match wins; names of other packages go to a
// file named for the package, and the rest of pulsar (results, enums and
// errors) to errors.go.
var fileConcerns = []struct{ file, prefix string }{
	{"reader.go", "Reader"}, {"reader.go", "TableView"},
	{"transaction.go", "Txn"}, {"transaction.go", "Transaction"},
	{"producer.go", "Producer"}, {"producer.go", "NewDefaultRouter"}, {"producer.go", "NewSinglePartitionRouter"},
	{"producer.go", "Batch"}, {"producer.go", "DefaultBatchBuilder"}, {"producer.go", "KeyBasedBatchBuilder"},
	{"producer.go", "GetBatcherBuilderProvider"}, {"producer.go", "Compression"}, {"producer.go", "HashingScheme"},
	{"producer.go", "JavaStringHash"}, {"producer.go", "Murmur3_32Hash"}, {"producer.go", "EncryptionContext"},
	{"consumer.go", "Consumer"}, {"consumer.go", "DLQPolicy"}, {"consumer.go", "KeyShared"},
	{"consumer.go", "NewKeySharedPolicy"}, {"consumer.go", "AckGrouping"}, {"consumer.go", "NackBackoff"},
	{"consumer.go", "Subscription"}, {"consumer.go", "SysProperty"}, {"consumer.go", "Retry"},
	{"consumer.go", "Dlq"}, {"consumer.go", "MaxReconsumeTimes"}, {"consumer.go", "MessageDecryptionInfo"},
	{"message.go", "Message"}, {"message.go", "TopicMessageID"}, {"message.go", "NewMessageID"},
	{"message.go", "EarliestMessageID"}, {"message.go", "LatestMessageID"}, {"message.go", "DeserializeMessageID"},
	{"message.go", "EncryptionKey"}, {"message.go", "PropertyOriginMessageID"},
	{"schema.go", "Schema"}, {"schema.go", "NewSchema"}, {"schema.go", "KeyValue"}, {"schema.go", "ProtoNative"},
	{"client.go", "Client"}, {"client.go", "NewClient"}, {"client.go", "Authentication"},
	{"client.go", "NewAuthentication"}, {"client.go", "MetricsCardinality"}, {"client.go", "TopicMetadata"},
}

// fileFor names the file that holds e's declaration.
func fileFor(e Entry) string {
	if e.Pkg != "pulsar" {
		return path.Base(e.Pkg) + ".go"
	}
	root, _, _ := strings.Cut(e.Name, ".")
	for _, c := range fileConcerns {
		if strings.HasPrefix(root, c.prefix) {
			return c.file
		}
	}
	if strings.HasSuffix(root, "Schema") {
		return "schema.go"
	}
	return "errors.go"
}

// source formats a file of the program: the generated-code header, doc
// (the package comment, may be empty), the imports and the declarations.
func source(doc string, imports map[string]bool, decls []string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by go run ./apiparity/gen from apiparity/names.txt; DO NOT EDIT.\n\n")
	b.WriteString(doc)
	b.WriteString("package main\n\n")
	if len(imports) > 0 {
		b.WriteString("//lint:file-ignore SA1019 the program uses every official name, the deprecated ones too\n\n")
		b.WriteString("import (\n")
		var ps []string
		for p := range imports {
			ps = append(ps, p)
		}
		thirdParty := func(p string) bool { first, _, _ := strings.Cut(p, "/"); return strings.Contains(first, ".") }
		sort.Slice(ps, func(i, j int) bool {
			if a, b := thirdParty(ps[i]), thirdParty(ps[j]); a != b {
				return b
			}
			return ps[i] < ps[j]
		})
		std := true
		for _, p := range ps {
			if std && thirdParty(p) {
				std = false
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "\t%q\n", p)
		}
		b.WriteString(")\n\n")
	}
	for _, d := range decls {
		b.WriteString(d + "\n\n")
	}
	return format.Source(b.Bytes())
}

// ToPulsargo turns the official copy into pulsargo's: the official
// module's import paths become pulsargo's.
func ToPulsargo(official map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(official))
	for name, src := range official {
		out[name] = bytes.ReplaceAll(src, []byte(`"`+apinames.OfficialModule+"/"), []byte(`"`+apinames.SDKModule+"/"))
	}
	return out
}
