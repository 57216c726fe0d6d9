// Package configfile is signpost.yaml decoded once into the typed values
// the checks of its settings read (File), as its schema
// (schemas/config.schema.json) describes it: the one place that reads its
// decoded YAML by member name.
package configfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"

	"github.com/signpost-dev/signpost/build/budgets"
	"github.com/signpost-dev/signpost/build/target"
)

// File is signpost.yaml as its schema (schemas/config.schema.json)
// describes it: what the checks of the settings read, once Decode
// has decoded the file's value into it. A value of the wrong type is left
// at its zero (the schema reports it), and a field a check must tell
// absent from empty is a pointer.
type File struct {
	Site struct {
		Origin      *string `json:"origin"`
		Publisher   string  `json:"publisher"`
		DisplayName string  `json:"displayName"`
		// PrivacyPolicyURL and TermsOfServiceURL are the servers'
		// policies, unless a server declares its own.
		PrivacyPolicyURL  string `json:"privacyPolicyUrl"`
		TermsOfServiceURL string `json:"termsOfServiceUrl"`
	} `json:"site"`
	ToolCatalog struct {
		CompactView         *bool   `json:"compactView"`
		CompactDescriptions *bool   `json:"compactDescriptions"`
		Budgets             Budgets `json:"budgets"`
		APIVersion          string  `json:"apiVersion"`
	} `json:"toolCatalog"`
	Discovery struct {
		MCPCatalog *bool `json:"mcpCatalog"`
		AICatalog  *bool `json:"aiCatalog"`
		Registry   *bool `json:"registry"`
		ARD        bool  `json:"ard"`
	} `json:"discovery"`
	Signing *Signing               `json:"signing"`
	Tenants []Tenant               `json:"tenants"`
	Limits  Limits                 `json:"limits"`
	Targets map[string]target.File `json:"targets"`
}

// Signing is signing:.
type Signing struct {
	Key          string      `json:"key"`
	PreviousKeys []PublicKey `json:"previousKeys"`
	Validity     json.Number `json:"validity"`
}

// PublicKey is an item of signing.previousKeys, a public JWK.
type PublicKey struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// Budgets is toolCatalog.budgets.
type Budgets struct {
	StandardList json.Number `json:"standardList"`
	CompactList  json.Number `json:"compactList"`
	Tool         json.Number `json:"tool"`
}

// Budgets are the token budgets; one not an integer is left unset.
func (b Budgets) Budgets() budgets.Budgets {
	n := func(v json.Number) int {
		i, _ := strconv.Atoi(v.String())
		return i
	}
	return budgets.Budgets{StandardList: n(b.StandardList), CompactList: n(b.CompactList), Tool: n(b.Tool)}
}

// Limits is limits:, each as written, nil when absent: the sizes (a
// json.Number or a string; see size.Parse) and the number of files (a
// json.Number unless it breaks the schema).
type Limits struct {
	Value    any `json:"value"`
	Document any `json:"document"`
	Build    any `json:"build"`
	Files    any `json:"files"`
}

// Tenant is an item of tenants: a tenant id, or a tenant with
// settings of its own.
type Tenant struct {
	// IsObject is set for a tenant with settings; ID is also set for a
	// tenant written as its id.
	IsObject bool `json:"-"`
	tenantObject
}

// tenantObject is a tenant with settings of its own.
type tenantObject struct {
	ID              string  `json:"id"`
	Origin          *string `json:"origin"`
	Gate            string  `json:"gate"`
	PublicDiscovery bool    `json:"publicDiscovery"`
}

func (t *Tenant) UnmarshalJSON(b []byte) error {
	*t = Tenant{}
	switch {
	case bytes.HasPrefix(b, []byte(`"`)):
		return json.Unmarshal(b, &t.ID)
	case bytes.HasPrefix(b, []byte("{")):
		t.IsObject = true
		return decodeLoose(b, &t.tenantObject)
	}
	return nil
}

// Decode decodes the value of signpost.yaml, numbers as json.Number;
// ok is false when it is not an object. It decodes what it can: a member
// of the wrong type stays at its zero, for the schema has reported it. A
// value source decoded always encodes and decodes again: an error is
// signpost's own.
func Decode(v any) (f File, ok bool, err error) {
	if _, ok := v.(map[string]any); !ok {
		return f, false, nil
	}
	data, err := json.Marshal(v)
	if err == nil {
		err = decodeLoose(data, &f)
	}
	return f, err == nil, err
}

// decodeLoose decodes data into v, numbers as json.Number, leaving a
// member whose value has the wrong type at its zero.
func decodeLoose(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var typeErr *json.UnmarshalTypeError
	if err := dec.Decode(v); err != nil && !errors.As(err, &typeErr) {
		return err
	}
	return nil
}

// TargetNames returns the names under targets: of the value of a
// signpost.yaml, sorted, as written: none when the value or its targets:
// is not an object. Nothing else is checked: it is what shell completion
// offers, from a file that may not be valid yet.
func TargetNames(v any) []string {
	m, _ := v.(map[string]any)
	targets, _ := m["targets"].(map[string]any)
	return slices.Sorted(maps.Keys(targets))
}
