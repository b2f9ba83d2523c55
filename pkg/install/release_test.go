package install

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReleaseRecord(t *testing.T) {
	r := &Release{
		Roles:        []Role{RoleMember, RoleCloud},
		Values:       map[string]any{"cloud": map[string]any{"agentless": true}, "logVerbosity": 2.0},
		ChartVersion: "0.1.0", AppVersion: "v0.1.0", Revision: 7,
		Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	cm, err := r.configMap()
	if err != nil {
		t.Fatal(err)
	}
	if cm.Namespace != "antreaplus-system" || cm.Name != ReleaseConfigMap || cm.Labels[InstanceLabel] != ReleaseName || cm.Labels[ManagedByLabel] != ManagedBy {
		t.Errorf("the record is %s/%s labelled %v", cm.Namespace, cm.Name, cm.Labels)
	}
	if cm.Data["roles"] != "member,cloud" || cm.Data["revision"] != "7" || cm.Data["time"] != "2026-01-02T03:04:05Z" {
		t.Errorf("data %v", cm.Data)
	}
	back, err := releaseFrom(cm)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("read back %+v, want %+v", back, r)
	}

	for key, bad := range map[string]string{"roles": "leader", "revision": "x", "time": "yesterday", "values.yaml": "[1"} {
		cm, _ := r.configMap()
		cm.Data[key] = bad
		if _, err := releaseFrom(cm); err == nil || !strings.Contains(err.Error(), "bad "+key) || !strings.Contains(err.Error(), "delete it") {
			t.Errorf("%s %q: error %v, want one naming it and saying what to do", key, bad, err)
		}
	}
}
