// Package statuswrite is the end of every status controller's reconcile:
// count a reconcile that needed no write, or write the status read (its
// resourceVersion arbitrates against any other writer), retry soon on a
// conflict, count and time the write. The member controller's export
// status controllers and its Network status controller use it; their
// metrics are shared and labelled by controller.
//
// # Usage
//
// See Example: the end of a Network status reconcile.
package statuswrite

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"antreaplus.io/antreaplus/internal/metricsreg"
)

var (
	reconciles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "antreaplus_status_reconciles_total",
		Help: "Reconciles of a status controller, by controller and result: written, unchanged (no write needed), error.",
	}, []string{"controller", "result"})
	writeSeconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "antreaplus_status_write_seconds",
		Help:    "Time from the start of a status controller's reconcile to its status write, by controller.",
		Buckets: prometheus.ExponentialBuckets(0.001, 2, 14),
	}, []string{"controller"})
)

// RegisterMetrics registers the status controllers' metrics on reg;
// registering them again is not an error.
func RegisterMetrics(reg prometheus.Registerer) error {
	return metricsreg.Register(reg, reconciles, writeSeconds)
}

// RetryAfter is how soon a status write that met a conflict, or an object
// gone meanwhile, is looked at again on fresh data.
const RetryAfter = 50 * time.Millisecond

// Writer ends the reconciles of the status controller it is named for.
type Writer struct {
	controller string
	c          client.Client
}

// New is the Writer of the controller called controller (its name in the
// manager: "serviceexport-status"), writing through c.
func New(controller string, c client.Client) Writer { return Writer{controller: controller, c: c} }

// Unchanged counts a reconcile whose status needed no write.
func (w Writer) Unchanged() (ctrl.Result, error) {
	reconciles.WithLabelValues(w.controller, "unchanged").Inc()
	return ctrl.Result{}, nil
}

// Write updates obj's status, with the resourceVersion it was read at, and
// counts it; start is when the reconcile began. A conflict or an object
// gone meanwhile is not an error: the key comes back after RetryAfter.
// kind names the object in the error.
func (w Writer) Write(ctx context.Context, obj client.Object, kind string, start time.Time) (ctrl.Result, error) {
	if err := w.c.Status().Update(ctx, obj); err != nil {
		reconciles.WithLabelValues(w.controller, "error").Inc()
		if apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
			return ctrl.Result{RequeueAfter: RetryAfter}, nil
		}
		return ctrl.Result{}, fmt.Errorf("writing the status of %s %s: %w", kind, client.ObjectKeyFromObject(obj), err)
	}
	reconciles.WithLabelValues(w.controller, "written").Inc()
	writeSeconds.WithLabelValues(w.controller).Observe(time.Since(start).Seconds())
	return ctrl.Result{}, nil
}
