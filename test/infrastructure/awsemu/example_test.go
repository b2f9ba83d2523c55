package awsemu_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"time"

	"antreaplus.io/antreaplus/pkg/cloud/aws"
	"antreaplus.io/antreaplus/pkg/cloud/provider"
	"antreaplus.io/antreaplus/test/infrastructure/awsemu"
)

// An emulated account with one VPC and one instance, read by the real
// provider (the AWS SDK) through an HTTP server; then throttling: the
// provider's retries are spent and the poll fails with ErrThrottled. Every
// call is counted per action.
func Example() {
	emu := awsemu.New(awsemu.Options{
		Credentials: []awsemu.Credential{{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}},
	})
	srv := httptest.NewServer(emu) // or http.ListenAndServe(addr, emu)
	defer srv.Close()
	vpc, err := emu.AddVPC(awsemu.VPCSpec{Region: "us-east-1", Name: "prod", CIDR: "10.10.0.0/16"})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := emu.AddInstance(awsemu.InstanceSpec{Region: "us-east-1", VPCID: vpc, Name: "web-1"}); err != nil {
		fmt.Println(err)
		return
	}

	p, err := aws.New(aws.Options{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret", Endpoint: srv.URL,
		MaxAttempts: 3, MaxBackoff: time.Millisecond})
	if err != nil {
		fmt.Println(err)
		return
	}
	snap, err := p.Inventory(context.Background(), "us-east-1")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, vm := range snap.VMs {
		fmt.Println(vm.Name, vm.VPCID == vpc, vm.State, len(vm.NICs), "interface(s)")
	}

	emu.Throttle("DescribeInstances", 3) // the next 3 calls get RequestLimitExceeded
	_, err = p.Inventory(context.Background(), "us-east-1")
	fmt.Println("throttled:", errors.Is(err, provider.ErrThrottled))
	fmt.Println("DescribeInstances calls:", emu.Calls("DescribeInstances"))
	// Output:
	// web-1 true Running 1 interface(s)
	// throttled: true
	// DescribeInstances calls: 4
}
