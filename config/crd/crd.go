package crd

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	mcscrd "sigs.k8s.io/mcs-api/config/crd"
	"sigs.k8s.io/yaml"
)

//go:embed bases/*.yaml
var bases embed.FS

// Project returns the project's own CRDs (federation, crd.antrea.io, cloud), sorted by name.
func Project() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := fs.Glob(bases, "bases/*.yaml")
	if err != nil {
		return nil, fmt.Errorf("listing embedded CRDs: %w", err)
	}
	sort.Strings(files)
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(files))
	for _, f := range files {
		raw, err := bases.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", f, err)
		}
		crd, err := decode(raw)
		if err != nil {
			return nil, fmt.Errorf("decoding %s: %w", f, err)
		}
		out = append(out, crd)
	}
	return out, nil
}

// MCS returns the ServiceExport and ServiceImport CRDs of the Multi-Cluster
// Services API, as published by sigs.k8s.io/mcs-api.
func MCS() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, raw := range [][]byte{mcscrd.ServiceExportCRD, mcscrd.ServiceImportCRD} {
		crd, err := decode(raw)
		if err != nil {
			return nil, fmt.Errorf("decoding MCS CRD: %w", err)
		}
		out = append(out, crd)
	}
	return out, nil
}

// All returns the project's CRDs followed by the MCS CRDs.
func All() ([]*apiextensionsv1.CustomResourceDefinition, error) {
	project, err := Project()
	if err != nil {
		return nil, err
	}
	mcs, err := MCS()
	if err != nil {
		return nil, err
	}
	return append(project, mcs...), nil
}

func decode(raw []byte) (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(raw, crd); err != nil {
		return nil, err
	}
	if crd.Kind != "CustomResourceDefinition" || crd.Name == "" {
		return nil, fmt.Errorf("not a named CustomResourceDefinition (kind %q)", crd.Kind)
	}
	return crd, nil
}
