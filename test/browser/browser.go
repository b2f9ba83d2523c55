// Package browser drives a real headless Chromium (Debian's chromium
// package, /usr/bin/chromium) from Go through the DevTools protocol
// (chromedp), for the console's end-to-end tests and its benchmark.
//
// # Usage
//
// Start a browser, navigate, wait for what the page must show, take a
// screenshot: test/e2e/console/helpers_test.go does each for the console's
// tests.
package browser

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/chromedp/chromedp"
)

// Path is Debian's Chromium.
const Path = "/usr/bin/chromium"

// Start starts a headless Chromium with a profile of its own in dir and
// returns a browser context (its first tab); cancel stops it. It errors,
// saying what to install, when Chromium is missing.
func Start(parent context.Context, dir string) (context.Context, context.CancelFunc, error) {
	path := Path
	if _, err := os.Stat(path); err != nil {
		if p, lerr := exec.LookPath("chromium"); lerr == nil {
			path = p
		} else {
			return nil, nil, fmt.Errorf("no Chromium at %s (install Debian's chromium package: hack/ensure-packages.sh chromium, which make test runs): %w", Path, err)
		}
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.UserDataDir(dir), chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.WindowSize(1400, 1000),
		// This machine's network is closed: Chromium's own background
		// connections would be refused, many at a time.
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("mute-audio", true),
		// The in-cluster console's tests serve a self-signed certificate.
		chromedp.Flag("ignore-certificate-errors", true),
	}
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, acancel := chromedp.NewExecAllocator(parent, opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	if err := chromedp.Do(bctx); err != nil {
		bcancel()
		acancel()
		return nil, nil, fmt.Errorf("starting %s: %w", path, err)
	}
	return bctx, func() { bcancel(); acancel() }, nil
}

// Rendered is what the console's page says it shows (window.consoleRendered).
type Rendered struct {
	View    string  `json:"view"`
	Version string  `json:"version"`
	At      float64 `json:"at"`
}

// WaitRendered waits until the page shows view at a version other than
// after ("" for any), and stores what it shows in got.
func WaitRendered(view, after string, got *Rendered) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for {
			r, err := chromedp.Evaluate[Rendered](`window.consoleRendered || {}`)(ctx, t)
			if err != nil {
				return err
			}
			if r.View == view && r.Version != "" && r.Version != after {
				if got != nil {
					*got = r
				}
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("the page did not show %s (it shows %q version %q): %w", view, r.View, r.Version, ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
}

// WaitJS waits until the expression is true in the page.
func WaitJS(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for {
			ok, err := chromedp.Evaluate[bool](`Boolean(`+expr+`)`)(ctx, t)
			if err != nil {
				return err
			}
			if ok {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("the page never had %s: %w", expr, ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
}

// Screenshot is a PNG of the whole page.
func Screenshot(ctx context.Context) ([]byte, error) {
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		return nil, err
	}
	if len(png) == 0 {
		return nil, errors.New("empty screenshot")
	}
	return png, nil
}
