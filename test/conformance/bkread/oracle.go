// The reference side of test/conformance/bkread.sh: each file named on stdin read as
// buildkite-agent pipeline upload reads it, by buildkite/go-pipeline's own ordered
// package (ordered.DecodeYAML over gopkg.in/yaml.v3: merges applied, every key a
// string), then each value of a field its step types keep as a string made one by
// fmt.Sprint, as its ordered.Unmarshal does (unmarshalScalar: a string, float64, int
// or bool into *string or *[]string). The fields are transcribed from go-pipeline's
// types at fd45720551e8: CommandStep (step_command.go: key/id/identifier and label/name,
// left out when empty, command/commands, env), GroupStep (step_group.go: key/id/identifier
// left out when empty, group/label/name a *string, a null kept),
// Cache (step_command_cache.go: name, size, paths) and Pipeline.Env (pipeline.go). One
// JSON line a file, or "ERR <message>" where the agent refuses it (encoding/json too: the
// agent uploads JSON). Not part of fanout.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/buildkite/go-pipeline/ordered"
	"gopkg.in/yaml.v3"
)

type obj = *ordered.Map[string, any]

// unstringable: a value ordered.Unmarshal makes no string of (unmarshalScalar takes a
// string, float64, int or bool: a timestamp or an integer past int64 is ErrUnsupportedSrc).
func unstringable(v any) bool {
	switch v.(type) {
	case time.Time, uint64:
		return true
	}
	return false
}

// anyUnstringable: whether a string field's value (or a list's item) is one.
func anyUnstringable(v any) bool {
	if l, ok := v.([]any); ok {
		for _, x := range l {
			if unstringable(x) {
				return true
			}
		}
		return false
	}
	return unstringable(v)
}

// sprint makes v the string go-pipeline's ordered.Unmarshal makes of a scalar for a
// string field: unmarshalScalar's fmt.Sprint, and "" for a null (it zeroes the string).
func sprint(v any) any {
	switch v.(type) {
	case nil:
		return ""
	case float64, int, bool:
		return fmt.Sprint(v)
	}
	return v
}

func strings(v any) any {
	if l, ok := v.([]any); ok {
		for i := range l {
			l[i] = sprint(l[i])
		}
		return l
	}
	return sprint(v)
}

func stringFields(m obj, names ...string) {
	for _, n := range names {
		if v, ok := m.Get(n); ok {
			m.Set(n, strings(v))
		}
	}
}

// omittedFields: `string` fields tagged omitempty, which the agent leaves out when empty.
func omittedFields(m obj, names ...string) {
	for _, n := range names {
		if v, ok := m.Get(n); ok {
			if s := sprint(v); s == "" {
				m.Delete(n)
			} else {
				m.Set(n, s)
			}
		}
	}
}

// nullableFields: `*string` fields, a null staying null.
func nullableFields(m obj, names ...string) {
	for _, n := range names {
		if v, ok := m.Get(n); ok && v != nil {
			m.Set(n, sprint(v))
		}
	}
}

func env(m obj) {
	if v, ok := m.Get("env"); ok {
		if e, ok := v.(obj); ok {
			_ = e.Range(func(k string, x any) error { e.Set(k, sprint(x)); return nil })
		}
	}
}

// failsTyping: whether a string field of m (or a value of its env) is unstringable:
// then the agent keeps the step as written (steps.go stepFromMap: an UnknownStep, with a
// warning).
func failsTyping(m obj, names ...string) bool {
	for _, n := range names {
		if v, ok := m.Get(n); ok && anyUnstringable(v) {
			return true
		}
	}
	if v, ok := m.Get("cache"); ok { // Cache's UnmarshalOrdered fails the step alike
		if c, ok := v.(obj); ok && failsTyping(c, "name", "size", "paths") {
			return true
		} else if !ok && anyUnstringable(v) {
			return true
		}
	}
	if v, ok := m.Get("env"); ok {
		if e, ok := v.(obj); ok {
			bad := false
			_ = e.Range(func(_ string, x any) error { bad = bad || unstringable(x); return nil })
			return bad
		}
	}
	return false
}

func step(v any) {
	m, ok := v.(obj)
	if !ok || failsTyping(m, "key", "id", "identifier", "label", "name", "command", "commands", "group") {
		return
	}
	has := func(k string) bool { _, ok := m.Get(k); return ok }
	switch {
	case has("command") || has("commands") || has("plugins"):
		omittedFields(m, "key", "id", "identifier", "label", "name")
		stringFields(m, "command", "commands")
		env(m)
		if c, ok := m.Get("cache"); ok {
			if cm, ok := c.(obj); ok {
				stringFields(cm, "name", "size", "paths")
			} else if _, ok := c.(bool); !ok {
				m.Set("cache", strings(c))
			}
		}
	case has("wait") || has("waiter") || has("block") || has("input") || has("manual") || has("trigger"):
	case has("group"):
		omittedFields(m, "key", "id", "identifier")
		nullableFields(m, "group", "label", "name")
		if s, ok := m.Get("steps"); ok {
			if l, ok := s.([]any); ok {
				for _, x := range l {
					step(x)
				}
			}
		}
	}
}

func read(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "ERR " + err.Error()
	}
	n := new(yaml.Node)
	if err := yaml.Unmarshal(b, n); err != nil {
		return "ERR " + err.Error()
	}
	v, err := ordered.DecodeYAML(n)
	if err != nil {
		return "ERR " + err.Error()
	}
	if m, ok := v.(obj); ok && typed {
		if e, ok := m.Get("env"); ok {
			if em, ok := e.(obj); ok {
				var bad error
				_ = em.Range(func(k string, x any) error {
					if unstringable(x) && bad == nil {
						bad = fmt.Errorf("unmarshaling value for key %q: cannot unmarshal from src %T", k, x)
					}
					return nil
				})
				if bad != nil { // the pipeline's env: Parse fails
					return "ERR " + bad.Error()
				}
			}
		}
		env(m)
		if s, ok := m.Get("steps"); ok {
			if l, ok := s.([]any); ok {
				for _, x := range l {
					step(x)
				}
			}
		}
	}
	out, err := json.Marshal(v)
	if err != nil {
		return "ERR " + err.Error()
	}
	return string(out)
}

var typed = true

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-raw" { // the values as decoded, none made strings
		typed = false
	}
	in := bufio.NewScanner(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for in.Scan() {
		fmt.Fprintln(w, read(in.Text()))
	}
}
