package awsemu_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/ec2"

	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

func TestAuthentication(t *testing.T) {
	emu := awsemu.New(awsemu.Options{Credentials: []awsemu.Credential{
		{AccessKeyID: testKeyID, SecretAccessKey: testSecret},
		{AccessKeyID: "ASIATEMP", SecretAccessKey: "tempsecret", SessionToken: "session-1"},
	}})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	ctx := t.Context()

	for _, tc := range []struct {
		name, keyID, secret, token, code string
	}{
		{"valid", testKeyID, testSecret, "", ""},
		{"wrong secret", testKeyID, "not-the-secret", "", "AuthFailure"},
		{"unknown key", "AKIDUNKNOWN", testSecret, "", "AuthFailure"},
		{"session token", "ASIATEMP", "tempsecret", "session-1", ""},
		{"missing session token", "ASIATEMP", "tempsecret", "", "AuthFailure"},
		{"wrong session token", "ASIATEMP", "tempsecret", "session-2", "AuthFailure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newClient(srv.URL, tc.keyID, tc.secret, tc.token).DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
			wantCode(t, err, tc.code)
			var re *awshttp.ResponseError
			if tc.code != "" && (!errors.As(err, &re) || re.HTTPStatusCode() != http.StatusUnauthorized) {
				t.Errorf("error %v; want HTTP 401", err)
			}
		})
	}

	t.Run("unknown region", func(t *testing.T) {
		_, err := newClient(srv.URL, testKeyID, testSecret, "").DescribeVpcs(ctx, &ec2.DescribeVpcsInput{}, func(o *ec2.Options) { o.Region = "mars-north-1" })
		wantCode(t, err, "AuthFailure")
		if !strings.Contains(err.Error(), "valid region, not 'mars-north-1'") {
			t.Errorf("error %v does not name the region", err)
		}
	})

	t.Run("tampered body", func(t *testing.T) {
		body := "Action=DescribeVpcs&Version=2016-11-15"
		req := signedRequest(t, srv.URL, body)
		req.Body = io.NopCloser(strings.NewReader(body + "&VpcId.1=vpc-1"))
		req.ContentLength += int64(len("&VpcId.1=vpc-1"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("tampered request got HTTP %d; want 401", resp.StatusCode)
		}
	})
}

// signedRequest signs a raw Query API POST with the SDK's own signer.
func signedRequest(t *testing.T, url, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	sum := sha256.Sum256([]byte(body))
	creds := aws.Credentials{AccessKeyID: testKeyID, SecretAccessKey: testSecret}
	if err := v4.NewSigner().SignHTTP(t.Context(), creds, req, hex.EncodeToString(sum[:]), "ec2", testRegion, time.Now()); err != nil {
		t.Fatal(err)
	}
	return req
}

func TestRawProtocolErrors(t *testing.T) {
	emu := awsemu.New(awsemu.Options{Credentials: []awsemu.Credential{{AccessKeyID: testKeyID, SecretAccessKey: testSecret}}})
	srv := httptest.NewServer(emu)
	defer srv.Close()
	for _, tc := range []struct {
		name, body string
		signed     bool
		status     int
		want       string
	}{
		{"unsigned", "Action=DescribeVpcs&Version=2016-11-15", false, 401, "<Code>AuthFailure</Code>"},
		{"unknown action", "Action=LaunchRockets&Version=2016-11-15", true, 400, "<Code>InvalidAction</Code>"},
		{"wrong version", "Action=DescribeVpcs&Version=2014-01-01", true, 400, "<Code>NoSuchVersion</Code>"},
		{"ok", "Action=DescribeVpcs&Version=2016-11-15", true, 200, `<DescribeVpcsResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(tc.body))
			if tc.signed {
				req = signedRequest(t, srv.URL, tc.body)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = resp.Body.Close() }()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.want) {
				t.Fatalf("HTTP %d %s; want %d with %s", resp.StatusCode, body, tc.status, tc.want)
			}
		})
	}
}

func TestThrottleAndCounters(t *testing.T) {
	emu, c := newEmulator(t, awsemu.Options{})
	ctx := t.Context()
	emu.Throttle("DescribeInstances", 2)
	for n := range 2 {
		_, err := c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{})
		wantCode(t, err, "RequestLimitExceeded")
		var re *awshttp.ResponseError
		if !errors.As(err, &re) || re.HTTPStatusCode() != http.StatusServiceUnavailable {
			t.Errorf("throttled call %d: %v; want HTTP 503", n, err)
		}
	}
	if _, err := c.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{}); err != nil {
		t.Errorf("DescribeVpcs was throttled by a DescribeInstances fault: %v", err)
	}
	if _, err := c.DescribeInstances(ctx, &ec2.DescribeInstancesInput{}); err != nil {
		t.Errorf("third call: %v; want the throttling over", err)
	}
	emu.FailAuth(1)
	_, err := c.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
	wantCode(t, err, "AuthFailure")
	if got := emu.CallCounts(); got["DescribeInstances"] != 3 || got["DescribeVpcs"] != 2 || emu.TotalCalls() != 5 {
		t.Errorf("counters = %v (total %d); want 3 DescribeInstances, 2 DescribeVpcs", got, emu.TotalCalls())
	}
	emu.ResetCalls()
	if emu.TotalCalls() != 0 {
		t.Error("ResetCalls left calls counted")
	}
	emu.InjectFault(awsemu.Fault{Times: -1, Code: "InternalError", Message: "boom", Status: 500})
	for range 3 {
		_, err := c.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
		wantCode(t, err, "InternalError")
	}
	emu.ClearFaults()
	if _, err := c.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{}); err != nil {
		t.Errorf("after ClearFaults: %v", err)
	}
}

func TestEventualConsistency(t *testing.T) {
	emu, c := newEmulator(t, awsemu.Options{})
	vpc := mustVPC(t, emu, awsemu.VPCSpec{})
	old := mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpc}).ID
	emu.HideNewInstances(2)
	fresh := mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpc})
	for call := 1; call <= 3; call++ {
		ids, err := allInstances(t, c, &ec2.DescribeInstancesInput{})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{old}
		if call == 3 {
			want = append(want, fresh.ID)
		}
		if !slices.Equal(ids, want) {
			t.Errorf("describe %d saw %v; want %v", call, ids, want)
		}
	}
	enis, err := c.DescribeNetworkInterfaces(t.Context(), &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: fresh.NICs})
	if err != nil || len(enis.NetworkInterfaces) != 1 {
		t.Errorf("interface of the now visible instance: %v, %v", enis, err)
	}
}

func TestPagesStayStableWhenAnInstanceGoesMidListing(t *testing.T) {
	emu, c := newEmulator(t, awsemu.Options{DefaultPageSize: 5})
	vpc := mustVPC(t, emu, awsemu.VPCSpec{})
	var all []string
	for range 12 {
		all = append(all, mustInstance(t, emu, awsemu.InstanceSpec{VPCID: vpc}).ID)
	}
	calls := 0
	emu.OnCall(func(action string) {
		if action != "DescribeInstances" {
			return
		}
		calls++
		if calls == 2 { // between page 1 and page 2: one seen, one not yet
			if err := emu.RemoveInstance(testRegion, all[1]); err != nil {
				t.Error(err)
			}
			if err := emu.RemoveInstance(testRegion, all[7]); err != nil {
				t.Error(err)
			}
		}
	})
	ids, err := allInstances(t, c, &ec2.DescribeInstancesInput{})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Delete(slices.Clone(all), 7, 8)
	if !slices.Equal(ids, want) {
		t.Fatalf("listing = %v; want %v (removed-after-seen kept, removed-before-seen gone, nothing skipped)", ids, want)
	}
}
