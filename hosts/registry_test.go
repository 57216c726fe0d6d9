package hosts

import (
	"encoding/json"
	"testing"
)

// TestRegistryIndex reads a list as serve does: each server's range is
// its response's bytes in the list, its name and description in lower
// case, its version as it is.
func TestRegistryIndex(t *testing.T) {
	a := `{"server":{"name":"Com.Example/Tickets","description":"Read TICKETS.","version":"4.2.0"}}`
	b := `{"_meta":{"x":"{\"server\":1}"},"server":{"name":"com.example/meteo","description":"MÉTÉO","version":"1.0.0+b.7"}}`
	list := `{"metadata":{"count":2},"servers":[` + a + `, ` + b + "]}\n"
	got, err := RegistryIndex([]byte(list))
	if err != nil {
		t.Fatal(err)
	}
	want := []RegistryEntry{
		{Start: len(`{"metadata":{"count":2},"servers":[`), Name: "com.example/tickets", Description: "read tickets.", Version: "4.2.0"},
		{Name: "com.example/meteo", Description: "météo", Version: "1.0.0+b.7"},
	}
	want[0].End = want[0].Start + len(a)
	want[1].Start = want[0].End + 2
	want[1].End = want[1].Start + len(b)
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("index %+v, want %+v", got, want)
	}
	if list[got[1].Start:got[1].End] != b {
		t.Errorf("the second range is %q", list[got[1].Start:got[1].End])
	}
	js, err := json.Marshal(got[:1])
	if err != nil || string(js) != `[[35,124,"com.example/tickets","read tickets.","4.2.0"]]` {
		t.Errorf("as JSON: %s (%v)", js, err)
	}
	for _, bad := range []string{`{"servers":{}}`, `{"servers":[1]}`, `nope`} {
		if _, err := RegistryIndex([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
