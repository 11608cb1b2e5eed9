package avro

import (
	"reflect"
	"strings"
)

// structFields is the Avro field names of struct type t and the index
// path of the Go field each maps to: the name in an `avro:"name"` tag, else
// the Go field's name; a tag wins over a name, an outer field over one of
// an embedded struct; `avro:"-"` is never mapped. Kept per schema and type.
func (s *Schema) structFields(t reflect.Type) map[string][]int {
	if m, ok := s.fields.Load(t); ok {
		return m.(map[string][]int)
	}
	tagged, named := map[string][]int{}, map[string][]int{}
	collectFields(t, nil, tagged, named, 0)
	for k, p := range named {
		if _, ok := tagged[k]; !ok {
			tagged[k] = p
		}
	}
	m, _ := s.fields.LoadOrStore(t, tagged)
	return m.(map[string][]int)
}

func collectFields(t reflect.Type, prefix []int, tagged, named map[string][]int, depth int) {
	if depth > 16 {
		return
	}
	var embedded []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("avro"), ",")
		if tag == "-" {
			continue
		}
		path := append(append([]int(nil), prefix...), i)
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && tag == "" && ft.Kind() == reflect.Struct {
			f.Index = path
			embedded = append(embedded, f)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if tag != "" {
			if _, ok := tagged[tag]; !ok {
				tagged[tag] = path
			}
		} else if _, ok := named[f.Name]; !ok {
			named[f.Name] = path
		}
	}
	for _, f := range embedded {
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		collectFields(ft, f.Index, tagged, named, depth+1)
	}
}

// fieldByPath is the field of struct v at path for reading; ok is false
// when there is none or an embedded pointer on the way is nil.
func fieldByPath(v reflect.Value, path []int) (reflect.Value, bool) {
	if path == nil {
		return reflect.Value{}, false
	}
	for i, x := range path {
		if i > 0 {
			if v.Kind() == reflect.Pointer {
				if v.IsNil() {
					return reflect.Value{}, false
				}
				v = v.Elem()
			}
		}
		v = v.Field(x)
	}
	return v, true
}

// fieldForSet is the field of struct v at path for writing, allocating
// embedded pointers on the way; ok is false when there is none or it
// cannot be set.
func fieldForSet(v reflect.Value, path []int) (reflect.Value, bool) {
	if path == nil {
		return reflect.Value{}, false
	}
	for i, x := range path {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !v.CanSet() {
					return reflect.Value{}, false
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, v.CanSet()
}
