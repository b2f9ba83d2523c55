package aws

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"antreaplus.io/antreaplus/pkg/cloud/provider"
)

// loadBalancer is an ELBv2 load balancer with its listeners and tags.
type loadBalancer struct {
	lb        elbtypes.LoadBalancer
	listeners []elbtypes.Listener
	tags      []elbtypes.Tag
}

// elbTagsPerCall is the most resources one ELBv2 DescribeTags takes.
const elbTagsPerCall = 20

// describeConcurrency bounds the per-load-balancer calls in flight.
const describeConcurrency = 4

// describeLoadBalancers reads every load balancer of the region, then the
// listeners of each (one call per load balancer and page) and the tags of
// all (one call per 20).
func (p *Provider) describeLoadBalancers(ctx context.Context, region string) ([]loadBalancer, error) {
	opt := func(o *elb.Options) { o.Region = region }
	var out []loadBalancer
	pages := elb.NewDescribeLoadBalancersPaginator(p.elb, &elb.DescribeLoadBalancersInput{PageSize: aws.Int32(min(p.opts.PageSize, 400))})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx, opt)
		if err != nil {
			return nil, err
		}
		for _, lb := range page.LoadBalancers {
			out = append(out, loadBalancer{lb: lb})
		}
	}
	if err := p.describeListeners(ctx, out, opt); err != nil {
		return nil, err
	}
	byARN := make(map[string]*loadBalancer, len(out))
	for i := range out {
		byARN[aws.ToString(out[i].lb.LoadBalancerArn)] = &out[i]
	}
	for batch := range slices.Chunk(slices.Sorted(maps.Keys(byARN)), elbTagsPerCall) {
		res, err := p.elb.DescribeTags(ctx, &elb.DescribeTagsInput{ResourceArns: batch}, opt)
		if err != nil {
			return nil, fmt.Errorf("DescribeTags: %w", err)
		}
		for _, d := range res.TagDescriptions {
			if lb := byARN[aws.ToString(d.ResourceArn)]; lb != nil {
				lb.tags = d.Tags
			}
		}
	}
	return out, nil
}

func (p *Provider) describeListeners(ctx context.Context, lbs []loadBalancer, opt func(*elb.Options)) error {
	var (
		wg    sync.WaitGroup
		slots = make(chan struct{}, describeConcurrency)
		errs  = make([]error, len(lbs))
	)
	for i := range lbs {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			pages := elb.NewDescribeListenersPaginator(p.elb, &elb.DescribeListenersInput{
				LoadBalancerArn: lbs[i].lb.LoadBalancerArn, PageSize: aws.Int32(min(p.opts.PageSize, 400))})
			for pages.HasMorePages() {
				page, err := pages.NextPage(ctx, opt)
				if err != nil {
					errs[i] = fmt.Errorf("DescribeListeners of %s: %w", aws.ToString(lbs[i].lb.LoadBalancerName), err)
					return
				}
				lbs[i].listeners = append(lbs[i].listeners, page.Listeners...)
			}
		})
	}
	wg.Wait()
	return firstError(errs)
}

// loadBalancerServices converts load balancers, taking their addresses from
// the network interfaces ELB creates for them, which EC2 describes as
// "ELB app/<name>/<id>" (or net/, gwy/), the last part of their ARN.
func loadBalancerServices(lbs []loadBalancer, enis []types.NetworkInterface) []provider.Service {
	byDescription := map[string][]types.NetworkInterface{}
	for _, e := range enis {
		if d := aws.ToString(e.Description); strings.HasPrefix(d, "ELB ") {
			byDescription[d] = append(byDescription[d], e)
		}
	}
	out := make([]provider.Service, 0, len(lbs))
	for _, lb := range lbs {
		arn := aws.ToString(lb.lb.LoadBalancerArn)
		svc := provider.Service{
			ID: arn, Name: aws.ToString(lb.lb.LoadBalancerName), Kind: provider.AWSLoadBalancer,
			VPCID: aws.ToString(lb.lb.VpcId), DNSName: aws.ToString(lb.lb.DNSName),
			SecurityGroupIDs: slices.Sorted(slices.Values(lb.lb.SecurityGroups)),
		}
		if _, suffix, ok := strings.Cut(arn, ":loadbalancer/"); ok {
			for _, e := range byDescription["ELB "+suffix] {
				svc.PrivateIPs = append(svc.PrivateIPs, eniPrivateIPs(e)...)
				if e.Association != nil && aws.ToString(e.Association.PublicIp) != "" {
					svc.PublicIPs = append(svc.PublicIPs, *e.Association.PublicIp)
				}
			}
		}
		slices.Sort(svc.PrivateIPs)
		slices.Sort(svc.PublicIPs)
		for _, l := range lb.listeners {
			svc.Ports = append(svc.Ports, listenerPorts(l)...)
		}
		slices.SortFunc(svc.Ports, func(a, b provider.Port) int {
			return cmp.Or(cmp.Compare(a.Port, b.Port), strings.Compare(a.Protocol, b.Protocol))
		})
		svc.Ports = slices.Compact(svc.Ports)
		if len(lb.tags) > 0 {
			svc.Tags = make(map[string]string, len(lb.tags))
			for _, t := range lb.tags {
				svc.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
			}
		}
		out = append(out, svc)
	}
	return out
}

func eniPrivateIPs(e types.NetworkInterface) []string {
	var out []string
	for _, ip := range e.PrivateIpAddresses {
		if a := aws.ToString(ip.PrivateIpAddress); a != "" {
			out = append(out, a)
		}
	}
	if len(out) == 0 && aws.ToString(e.PrivateIpAddress) != "" {
		out = append(out, *e.PrivateIpAddress)
	}
	for _, ip := range e.Ipv6Addresses {
		out = append(out, aws.ToString(ip.Ipv6Address))
	}
	return out
}

// listenerPorts are the transport ports a listener takes: HTTP, HTTPS, TLS
// and TCP are TCP; UDP and QUIC are UDP; TCP_UDP and TCP_QUIC both; GENEVE
// (gateway load balancers) UDP 6081.
func listenerPorts(l elbtypes.Listener) []provider.Port {
	port := aws.ToInt32(l.Port)
	name := strings.ToLower(strings.ReplaceAll(string(l.Protocol), "_", "-"))
	named := func(proto string) provider.Port {
		return provider.Port{Name: fmt.Sprintf("%s-%d", name, port), Protocol: proto, Port: port}
	}
	switch l.Protocol {
	case elbtypes.ProtocolEnumUdp, elbtypes.ProtocolEnumQuic:
		return []provider.Port{named("UDP")}
	case elbtypes.ProtocolEnumTcpUdp, elbtypes.ProtocolEnumTcpQuic:
		tcp, udp := named("TCP"), named("UDP")
		tcp.Name, udp.Name = fmt.Sprintf("tcp-%d", port), fmt.Sprintf("udp-%d", port)
		return []provider.Port{tcp, udp}
	case elbtypes.ProtocolEnumGeneve:
		return []provider.Port{{Name: "geneve", Protocol: "UDP", Port: cmp.Or(port, 6081)}}
	}
	return []provider.Port{named("TCP")}
}
