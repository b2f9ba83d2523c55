package networkstatus

import (
	"context"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/log"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"antreaplus.io/antreaplus/internal/scheme"
	"antreaplus.io/antreaplus/test/framework"
)

// The controller runs against a real API server (framework.Main), as the
// member controller runs it.
var clusters *framework.Clusters

func TestMain(m *testing.M) {
	log.SetLogger(klog.Background())
	framework.Main(m, 1, &clusters)
}

const cluster = "member-1"

var (
	startOnce sync.Once
	startErr  error
)

func start(t *testing.T) client.Client {
	t.Helper()
	c := clusters.Client(t, cluster)
	startOnce.Do(func() { startErr = run(clusters.Config(t, cluster)) })
	if startErr != nil {
		t.Fatal(startErr)
	}
	return c
}

// run starts the controller in a manager that outlives every test.
func run(cfg *rest.Config) error {
	sch, err := scheme.New()
	if err != nil {
		return err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: sch, Metrics: metricsserver.Options{BindAddress: "0"},
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		return err
	}
	if err := (&Reconciler{Client: mgr.GetClient()}).SetupWithManager(mgr); err != nil {
		return err
	}
	go func() {
		if err := mgr.Start(context.Background()); err != nil {
			log.Log.Error(err, "The manager stopped")
		}
	}()
	return nil
}
