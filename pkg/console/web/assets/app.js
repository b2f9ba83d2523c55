// The AntreaPlus console's page: one ES module, no build step. Each view
// follows its server-sent events (/api/events/<view>): every new version of
// the view's JSON is rendered in place, keeping the filters, the open
// details and the scroll position.

const $ = (sel, root = document) => root.querySelector(sel);
const esc = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const plural = (n, one, many = one + "s") => `${n} ${n === 1 ? one : many}`;

let info = { mode: "local", trace: false, contexts: [] };
// details are the contents of each row's <details>, by its key, rendered
// only when it is open: a view of 1,000 Services renders 1,000 summaries.
let details = {};
let source = null;      // the EventSource of the current view
let current = "";       // the current view's name
let latest = null;      // the current view's latest JSON
const filters = {};     // filter values, by view

// rendered marks, for people and the tests, which version of which view
// the page shows (data-view, data-version on <main>; window.consoleRendered).
function rendered(view, version) {
  const main = $("#main");
  main.dataset.view = view;
  main.dataset.version = version;
  window.consoleRendered = { view, version, at: performance.now() };
}

function announce(text) {
  const a = $("#announce");
  a.textContent = "";
  setTimeout(() => { a.textContent = text; }, 50);
}

function badge(text, kind = "") {
  return `<span class="badge ${kind}">${esc(text)}</span>`;
}

function kubectl(cmd) {
  if (!cmd) return "";
  return `<div class="kubectl"><code>${esc(cmd)}</code><button type="button" class="copy" data-copy="${esc(cmd)}" aria-label="Copy the command ${esc(cmd)}">copy</button></div>`;
}

function ago(t) {
  if (!t) return "";
  const d = (Date.now() - new Date(t).getTime()) / 1000;
  if (isNaN(d)) return "";
  if (d < 60) return `${Math.max(0, Math.round(d))} s ago`;
  if (d < 3600) return `${Math.round(d / 60)} min ago`;
  if (d < 86400) return `${Math.round(d / 3600)} h ago`;
  return `${Math.round(d / 86400)} d ago`;
}

// headers says, per member, what the view could not read: an unreachable
// member (its last known objects shown, stale), kinds the user may not read
// (never shown as empty), kinds not installed.
function headers(hs) {
  let out = "";
  for (const h of hs || []) {
    if (h.health && h.health.probed && !h.health.reachable) {
      out += `<p class="notice bad" data-member="${esc(h.context)}" data-state="unreachable"><strong>${esc(h.context)}</strong> is unreachable${h.health.since ? " since " + esc(ago(h.health.since)) : ""}: ${esc(h.health.error)}. What is shown of it is what it last held.</p>`;
    }
    const down = h.health && h.health.probed && !h.health.reachable;
    for (const u of h.unreadable || []) {
      if (down && u.state === "Failing") continue; // said once: unreachable
      out += `<p class="notice" data-member="${esc(h.context)}" data-state="unreadable" data-kind="${esc(u.kind)}"><strong>${esc(h.context)}</strong>: ${esc(u.kind)} not readable${u.state === "Failing" ? " (failing)" : ""}: ${esc(u.message)}</p>`;
    }
  }
  return out;
}

// ---- federation ----------------------------------------------------------

function memberClass(m) {
  if (m.health && m.health.probed && !m.health.reachable) return "bad";
  if (!m.leader || (m.problems && m.problems.length)) return "warn";
  return "ok";
}

function picture(f) {
  const box = { w: 150, h: 46, gap: 18, zonePad: 14, regionPad: 16, top: 34 };
  const pos = {};
  let x = 12, height = 0;
  const parts = [];
  const byContext = Object.fromEntries([...f.members, ...(f.outside || [])].map((m) => [m.context, m]));
  for (const r of f.regions) {
    const rx = x;
    let zx = rx + box.regionPad, maxZoneH = 0;
    const zones = [];
    for (const z of r.zones) {
      const zh = box.zonePad * 2 + 16 + z.members.length * (box.h + box.gap) - box.gap;
      zones.push({ z, zx, zh });
      z.members.forEach((ctx, i) => { pos[ctx] = { x: zx + box.zonePad, y: box.top + box.regionPad + 16 + box.zonePad + i * (box.h + box.gap) }; });
      zx += box.w + box.zonePad * 2 + box.gap;
      maxZoneH = Math.max(maxZoneH, zh);
    }
    const rw = zx - rx - box.gap + box.regionPad;
    const rh = maxZoneH + box.regionPad * 2 + 16;
    parts.push(`<rect class="region" x="${rx}" y="${box.top - 16}" width="${rw}" height="${rh + 16}" rx="10"/><text x="${rx + 8}" y="${box.top - 2}" class="label">region ${esc(r.name || "(none)")}</text>`);
    for (const { z, zx: zx0, zh } of zones) {
      parts.push(`<rect class="zone" x="${zx0}" y="${box.top + box.regionPad}" width="${box.w + box.zonePad * 2}" height="${zh}" rx="8"/><text x="${zx0 + 8}" y="${box.top + box.regionPad + 14}" class="label">zone ${esc(z.name || "(none)")}</text>`);
    }
    x = rx + rw + 24;
    height = Math.max(height, box.top + rh + 20);
  }
  const byID = Object.fromEntries(f.members.map((m) => [m.clusterID, m]));
  const edges = [];
  for (const m of f.members) {
    const to = m.leaderContext && pos[m.leaderContext], from = pos[m.context];
    if (!to || !from || m.leaderContext === m.context) continue;
    const x1 = from.x + box.w / 2, y1 = from.y, x2 = to.x + box.w / 2, y2 = to.y + box.h;
    const mx = (x1 + x2) / 2, my = Math.min(y1, y2) - 30;
    edges.push(`<path class="edge" d="M${x2},${y2 - box.h} Q${mx},${my} ${x1},${y1}"><title>${esc(m.leader)} leads ${esc(m.clusterID)}</title></path>`);
  }
  const nodes = [];
  for (const [ctx, p] of Object.entries(pos)) {
    const m = byContext[ctx] || { context: ctx };
    const led = m.leader ? `led by ${m.leader}` : (m.clusterID ? "not led" : "not federated");
    nodes.push(`<g class="node ${memberClass(m)}" data-member="${esc(ctx)}"><title>${esc(ctx)}: ${esc(led)}</title><rect x="${p.x}" y="${p.y}" width="${box.w}" height="${box.h}" rx="7"/>` +
      `<text x="${p.x + 8}" y="${p.y + 18}">${m.supervisor ? "★ " : ""}${esc(m.clusterID || ctx)}</text><text x="${p.x + 8}" y="${p.y + 35}" class="label">${esc(led)}</text></g>`);
  }
  const sups = f.supervisors.map((s) => `${s.clusterID} leads ${s.leads.length}`).join(", ");
  const label = `The federation: ${plural(f.members.length, "member")} in ${plural(f.regions.length, "region")}; ${sups || "no supervisor read"}.`;
  return `<div class="picture"><svg role="img" aria-label="${esc(label)}" width="${Math.max(x, 400)}" height="${Math.max(height, 140)}" viewBox="0 0 ${Math.max(x, 400)} ${Math.max(height, 140)}">` +
    `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>` +
    parts.join("") + edges.join("") + nodes.join("") + `</svg></div>`;
}

function renderFederation(f) {
  $("#federation").textContent = f.federationIDs.length ? "federation " + f.federationIDs.join(", ") : "no federation";
  let h = `<h2 id="view-title">Federation</h2>` + headers(f.headers) + picture(f);
  h += `<p class="muted">★ supervisor · arrows: from the supervisor that leads a member · green: led and reachable · amber: not led or a problem · red: unreachable</p>`;
  h += `<h3>Members</h3><table aria-describedby="view-title"><thead><tr><th scope="col">Member</th><th scope="col">Region / zones</th><th scope="col">Role</th><th scope="col">Led by</th><th scope="col">Term</th><th scope="col">Leading for</th><th scope="col">Reachable</th><th scope="col">Credentials</th><th scope="col">Problems</th></tr></thead><tbody>`;
  for (const m of f.members) {
    const reach = m.health && m.health.probed && !m.health.reachable ? badge("unreachable", "bad") : (m.reachable ? badge("yes", "ok") : badge(m.reportedBy ? "no (registry)" : "unknown", "warn"));
    h += `<tr data-member="${esc(m.context)}"><th scope="row">${esc(m.clusterID)}<div class="muted mono">${esc(m.context)}</div>${kubectl(m.kubectl)}</th>` +
      `<td>${esc(m.region || "–")}${m.zones && m.zones.length ? " / " + esc(m.zones.join(", ")) : ""}</td>` +
      `<td>${m.supervisor ? badge("supervisor", "info") : "member"}</td><td data-leader="${esc(m.leader || "")}">${m.leader ? esc(m.leader) : badge("none", "warn")}${m.leaseKubectl ? `<details data-key="lease:${esc(m.context)}"><summary class="muted">its Lease</summary>${kubectl(m.leaseKubectl)}</details>` : ""}</td>` +
      `<td>${m.leaderTerm ?? ""}</td><td>${m.leaderSince ? esc(ago(m.leaderSince).replace(" ago", "")) : ""}</td><td>${reach}${m.lastError ? `<div class="muted">${esc(m.lastError)}</div>` : ""}</td>` +
      `<td>${m.credentials ? badge("invalid", "bad") + `<div class="muted">${esc(m.credentials)}</div>` : badge("valid", "ok")}</td>` +
      `<td>${(m.problems || []).map((p) => `<div>${esc(p)}</div>`).join("")}</td></tr>`;
  }
  h += `</tbody></table>`;
  if (f.outside && f.outside.length) {
    h += `<h3>Contexts outside any federation</h3><ul>` + f.outside.map((m) => `<li>${esc(m.context)}</li>`).join("") + `</ul>`;
  }
  h += `<div class="grid"><section class="card" aria-labelledby="sup-title"><h3 id="sup-title">Supervisors</h3><table><thead><tr><th scope="col">Supervisor</th><th scope="col">Manager</th><th scope="col">Leads</th><th scope="col">Registry</th></tr></thead><tbody>`;
  for (const s of f.supervisors) {
    h += `<tr data-supervisor="${esc(s.clusterID)}" data-manager="${s.managerAlive ? "alive" : "stopped"}"><th scope="row">${esc(s.clusterID)}</th><td>${s.manager ? badge(s.manager, s.managerAlive ? "ok" : "bad") : ""}</td><td>${s.leads.length ? esc(s.leads.join(", ")) : '<span class="muted">none</span>'}</td><td>${s.reachable ? badge("read", "ok") : badge("not read", "bad") + `<div class="muted">${esc(s.error)}</div>`}</td></tr>`;
  }
  h += `</tbody></table></section><section class="card" aria-labelledby="chg-title"><h3 id="chg-title">Recent changes of leader</h3>`;
  if (!f.changes.length) h += `<p class="muted">none seen since the console started</p>`;
  else {
    h += `<table id="changes"><thead><tr><th scope="col">When</th><th scope="col">Member</th><th scope="col">From</th><th scope="col">To</th><th scope="col">Term</th></tr></thead><tbody>`;
    for (const c of f.changes) h += `<tr><td>${esc(ago(c.at))}</td><td>${esc(c.member)}</td><td>${esc(c.from || "none")}</td><td>${esc(c.to || "none")}</td><td>${c.term}</td></tr>`;
    h += `</tbody></table>`;
  }
  h += `</section></div>`;
  if (f.problems.length) h += `<h3>Problems</h3><ul class="problems">` + f.problems.map((p) => `<li>${esc(p)}</li>`).join("") + `</ul>`;
  return h;
}

// ---- services ------------------------------------------------------------

function renderServices(v) {
  const q = (filters.services || {}).q || "";
  let h = `<h2 id="view-title">Federated Services</h2>` + headers(v.headers);
  for (const [id, why] of Object.entries(v.unreadable || {})) h += `<p class="notice bad">${esc(id)}: not read: ${esc(why)}</p>`;
  h += `<div class="filters"><label>Filter<input type="search" id="f-q" value="${esc(q)}" placeholder="name, namespace or member"></label><span class="muted" id="count"></span></div>`;
  h += `<table aria-describedby="view-title"><thead><tr><th scope="col">Service</th><th scope="col">Type</th><th scope="col">Ports</th><th scope="col">Exported by</th><th scope="col">Imported in</th><th scope="col">Conflicts</th></tr></thead><tbody>`;
  const needle = q.toLowerCase();
  let shown = 0;
  for (const s of v.services) {
    const key = `${s.namespace}/${s.name}`;
    const hay = (key + " " + s.exporters.map((e) => e.cluster).join(" ") + " " + s.importers.map((i) => i.cluster).join(" ")).toLowerCase();
    if (needle && !hay.includes(needle)) continue;
    shown++;
    const exp = s.exporters.map((e) => `<div>${esc(e.cluster)} ${badge(e.serviceType || "?", e.ready === "True" ? "ok" : "warn")}${e.conflict && e.conflict.startsWith("True") ? " " + badge("conflict", "bad") : ""}</div>`).join("");
    const imp = s.importers.map((i) => `<span class="badge ${i.endpoints ? "ok" : "warn"}" title="${esc(plural(i.endpoints, "ready endpoint"))}">${esc(i.cluster)}</span>`).join(" ");
    details[`svc:${key}`] = () => serviceDetails(s);
    h += `<tr data-service="${esc(key)}"><th scope="row"><details data-key="svc:${esc(key)}"><summary>${esc(key)}</summary><div class="more"></div></details></th>` +
      `<td>${esc(s.type || "–")}</td><td>${esc((s.ports || []).join(", "))}</td><td>${exp}</td><td>${imp || '<span class="muted">none yet</span>'}</td><td>${(s.conflicts || []).map((c) => `<div>${esc(c)}</div>`).join("")}</td></tr>`;
  }
  h += `</tbody></table>`;
  if (!v.services.length) h += `<p class="muted">No federated Service: export one with <code>antreaplus service export</code>.</p>`;
  return [h, `${shown} of ${plural(v.services.length, "federated Service")}`];
}

function serviceDetails(s) {
  let h = `<h4>Names</h4><ul>` + s.names.map((n) => `<li><code>${esc(n.name)}</code> <span class="muted">${esc(n.scope)}${n.of ? " " + esc(n.of) : ""}</span></li>`).join("") + `</ul>`;
  h += `<h4>Exporters</h4><table><thead><tr><th scope="col">Member</th><th scope="col">Type</th><th scope="col">Addresses</th><th scope="col">Valid</th><th scope="col">Ready</th><th scope="col">Scope</th><th scope="col">Exported</th></tr></thead><tbody>`;
  for (const e of s.exporters) {
    h += `<tr><td>${esc(e.cluster)}</td><td>${esc(e.serviceType)}</td><td>${esc(e.addressType || "")} ${esc((e.addresses || []).join(", "))}<div class="muted">${esc(e.message || "")}</div></td><td>${esc(e.valid)}</td><td>${esc(e.ready)}</td><td>${esc(e.scope)}</td><td>${esc(e.exported)}<div class="muted">${esc(e.exportedMessage || "")}</div></td></tr>`;
  }
  h += `</tbody></table><h4>Importers</h4><table><thead><tr><th scope="col">Member</th><th scope="col">IPs</th><th scope="col">Ready endpoints</th><th scope="col">From</th></tr></thead><tbody>`;
  for (const i of s.importers) h += `<tr><td>${esc(i.cluster)}</td><td>${esc((i.ips || []).join(", "))}</td><td>${i.endpoints}</td><td>${esc((i.sources || []).join(", "))}</td></tr>`;
  h += `</tbody></table>`;
  if (s.records.length) {
    h += `<h4>ExternalDNS records</h4><table><thead><tr><th scope="col">Published by</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Targets</th><th scope="col">TTL</th></tr></thead><tbody>`;
    for (const r of s.records) h += `<tr><td>${esc(r.member)}</td><td><code>${esc(r.name)}</code></td><td>${esc(r.type)}</td><td>${esc(r.targets.join(", "))}</td><td>${r.ttl || ""}</td></tr>`;
    h += `</tbody></table>`;
  }
  return h + s.kubectl.map(kubectl).join("");
}

// ---- policies ------------------------------------------------------------

function renderPolicies(v) {
  const f = filters.policies || {};
  const members = [...new Set(v.policies.map((p) => p.context))].sort();
  const namespaces = [...new Set(v.policies.map((p) => p.namespace).filter(Boolean))].sort();
  const states = ["Realized", "NotRealized", "Stale", "Refused", "Pending"];
  const opt = (vals, sel, all) => `<option value="">${all}</option>` + vals.map((x) => `<option ${x === sel ? "selected" : ""}>${esc(x)}</option>`).join("");
  let h = `<h2 id="view-title">Policies</h2>` + headers(v.headers);
  h += `<p class="muted">${plural(v.summary.policies, "policy", "policies")} in ${plural(v.summary.membersRead, "member")} read: ${v.summary.federated} federated, ${v.summary.notRealized} not realised, ${v.summary.stale} stale</p>`;
  h += `<div class="filters"><label>Member<select id="f-member">${opt(members, f.member, "every member")}</select></label>` +
    `<label>Namespace<select id="f-ns">${opt(namespaces, f.ns, "every Namespace")}</select></label>` +
    `<label>State<select id="f-state">${opt(states, f.state, "every state")}</select></label><span class="muted" id="count"></span></div>`;
  h += `<table aria-describedby="view-title"><thead><tr><th scope="col">Policy</th><th scope="col">Member</th><th scope="col">Kind</th><th scope="col">Tier / priority</th><th scope="col">State</th><th scope="col">Realised</th><th scope="col">Remote sources</th></tr></thead><tbody>`;
  let shown = 0;
  for (const p of v.policies) {
    if ((f.member && p.context !== f.member) || (f.ns && p.namespace !== f.ns) || (f.state && p.state !== f.state)) continue;
    shown++;
    const key = `${p.context}/${p.kind}/${p.namespace}/${p.name}`;
    const st = { Realized: "ok", Refused: "bad", NotRealized: "warn", Stale: "warn", Pending: "warn" }[p.state] || "";
    const remote = p.remote ? `${p.remote.sourcesResolved}/${p.remote.sourcesTotal}${p.remote.refusedPeers ? " · " + badge(plural(p.remote.refusedPeers, "peer") + " refused", "bad") : ""}` : "";
    details[`pol:${key}`] = () => policyDetails(p);
    h += `<tr data-policy="${esc(key)}" data-state="${esc(p.state)}"><th scope="row"><details data-key="pol:${esc(key)}"><summary>${esc(p.namespace ? p.namespace + "/" : "")}${esc(p.name)}</summary><div class="more"></div></details>${p.derivedFrom ? `<div class="muted">derived from ${esc(p.derivedFrom)}</div>` : ""}</th>` +
      `<td>${esc(p.context)}</td><td>${esc(p.kind)}</td><td>${esc(p.tier || "")} ${p.priority}</td><td>${badge(p.state, st)}${p.phase && p.phase !== p.state ? ` <span class="muted">${esc(p.phase)}</span>` : ""}</td><td>${p.realized}/${p.desired}</td><td>${remote}</td></tr>`;
  }
  h += `</tbody></table>`;
  return [h, `${shown} of ${plural(v.policies.length, "policy", "policies")}`];
}

function policyDetails(p) {
  let h = "";
  if (p.refusedPeers && p.refusedPeers.length) {
    h += `<h4>Refused peers</h4><ul class="refused">` + p.refusedPeers.map((r) => `<li>rule ${esc(r.rule)}, peer ${esc(r.peer)}: <strong>${esc(r.reason)}</strong>: ${esc(r.message)}</li>`).join("") + `</ul>`;
  }
  if (p.conditions && p.conditions.length) {
    h += `<h4>Conditions</h4><table><thead><tr><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Reason</th><th scope="col">Message</th></tr></thead><tbody>` +
      p.conditions.map((c) => `<tr><td>${esc(c.type)}</td><td>${esc(c.status)}</td><td>${esc(c.reason || "")}</td><td>${esc(c.message || "")}</td></tr>`).join("") + `</tbody></table>`;
  }
  if (p.enforcementPoints && p.enforcementPoints.length) {
    h += `<h4>Enforcement points</h4><table><thead><tr><th scope="col">Point</th><th scope="col">Realised</th><th scope="col">Reason</th><th scope="col">Message</th></tr></thead><tbody>` +
      p.enforcementPoints.map((e) => `<tr><td>${esc(e.name)}</td><td>${e.realized ? badge("yes", "ok") : badge("no", "warn")}</td><td>${esc(e.reason || "")}</td><td>${esc(e.message || "")}</td></tr>`).join("") + `</tbody></table>`;
  }
  if (p.remoteSources && p.remoteSources.length) {
    h += `<h4>Remote sources</h4><table><thead><tr><th scope="col">Rule</th><th scope="col">Source</th><th scope="col">Resolved</th><th scope="col">From</th><th scope="col">Addresses</th><th scope="col">Message</th></tr></thead><tbody>` +
      p.remoteSources.map((r) => `<tr><td>${esc(r.rule)}</td><td>${esc(r.kind)} ${esc(r.name)}</td><td>${r.resolved ? badge("yes", "ok") : badge("awaited", "warn")}</td><td>${esc((r.clusters || []).join(", "))}</td><td>${r.addresses || 0}</td><td>${esc(r.message || "")}</td></tr>`).join("") + `</tbody></table>`;
  }
  if (p.derivedPolicy) h += `<p>Derived Antrea policy: <code>${esc(p.derivedPolicy)}</code></p>`;
  return h + kubectl(p.kubectl);
}

// ---- clouds --------------------------------------------------------------

function renderClouds(v) {
  let h = `<h2 id="view-title">Clouds</h2>` + headers(v.headers);
  for (const m of v.members) {
    const empty = !m.accounts.length && !m.vms.length && !m.services.length && !m.tenants.length;
    h += `<section aria-labelledby="cl-${esc(m.context)}" data-member="${esc(m.context)}"><h3 id="cl-${esc(m.context)}">${esc(m.context)}</h3>`;
    if (empty && !m.networks.length) { h += `<p class="muted">no cloud account, VM, service or tenant</p></section>`; continue; }
    if (m.accounts.length) {
      h += `<h4>Accounts</h4><table><thead><tr><th scope="col">Account</th><th scope="col">Provider</th><th scope="col">Ready</th></tr></thead><tbody>` +
        m.accounts.map((a) => `<tr><th scope="row">${esc(a.namespace)}/${esc(a.name)}${kubectl(a.kubectl)}</th><td>${esc(a.provider)}</td><td>${badge(a.ready, a.ready === "True" ? "ok" : "warn")}<div class="muted">${esc(a.message)}</div></td></tr>`).join("") + `</tbody></table>`;
    }
    if (m.networks.length) {
      h += `<h4>Networks</h4><table><thead><tr><th scope="col">Network</th><th scope="col">Kind</th><th scope="col">VPC / VNet</th><th scope="col">Ranges</th><th scope="col">Flat to</th><th scope="col">Valid</th></tr></thead><tbody>` +
        m.networks.map((n) => `<tr><th scope="row">${esc(n.name)}${kubectl(n.kubectl)}</th><td>${esc(n.kind)}</td><td>${esc(n.vpc || "")}</td><td>${esc((n.cidrs || []).join(", "))}</td><td>${esc((n.flat || []).join(", "))}</td><td>${badge(n.valid, n.valid === "True" ? "ok" : "warn")} <span class="muted">${esc(n.message || "")}</span></td></tr>`).join("") + `</tbody></table>`;
    }
    if (m.vms.length) {
      h += `<h4>VMs</h4><table><thead><tr><th scope="col">VM</th><th scope="col">Provider / region</th><th scope="col">VPC</th><th scope="col">State</th><th scope="col">Enforcement</th><th scope="col">Policies realised</th></tr></thead><tbody>` +
        m.vms.map((vm) => `<tr data-vm="${esc(vm.cloudName || vm.name)}"><th scope="row">${esc(vm.cloudName || vm.name)}<div class="muted mono">${esc(vm.namespace)}/${esc(vm.name)}</div>${kubectl(vm.kubectl)}</th><td>${esc(vm.provider)} ${esc(vm.region)}</td><td>${esc(vm.vpc)}</td><td>${esc(vm.state)}</td>` +
          `<td>${esc(vm.enforcement)}${vm.agent ? `<div>${badge("agent " + vm.agent, vm.agent.startsWith("connected") ? "ok" : "warn")}</div>` : ""}</td><td>${badge(vm.realized, vm.realized === "True" ? "ok" : "warn")}<div class="muted">${esc(vm.message)}</div></td></tr>`).join("") + `</tbody></table>`;
    }
    if (m.services.length) {
      h += `<h4>Cloud services</h4><table><thead><tr><th scope="col">Service</th><th scope="col">Kind</th><th scope="col">Policies realised</th></tr></thead><tbody>` +
        m.services.map((s) => `<tr><th scope="row">${esc(s.cloudName || s.name)}<div class="muted mono">${esc(s.namespace)}/${esc(s.name)}</div>${kubectl(s.kubectl)}</th><td>${esc(s.kind)}</td><td>${badge(s.realized, s.realized === "True" ? "ok" : "warn")}<div class="muted">${esc(s.message)}</div></td></tr>`).join("") + `</tbody></table>`;
    }
    if (m.tenants.length) {
      h += `<h4>Tenants</h4><table><thead><tr><th scope="col">Tenant</th><th scope="col">Controller</th><th scope="col">Owner (replica)</th><th scope="col">Accounts</th><th scope="col">VPCs</th><th scope="col">VMs</th><th scope="col">Policies</th><th scope="col">Warnings</th></tr></thead><tbody>` +
        m.tenants.map((t) => `<tr data-tenant="${esc(t.tenant)}"><th scope="row">${esc(t.tenant)}${kubectl(t.kubectl)}</th><td>${esc(t.controller)}</td><td>${t.owner ? esc(t.owner) + (t.ownerExpired ? " " + badge("expired", "bad") : "") : badge("unclaimed", "warn")}</td><td>${t.accounts}</td><td>${t.vpcs}</td><td>${t.vms}</td><td>${t.policies}</td><td>${(t.warnings || []).map((w) => `<div>${esc(w)}</div>`).join("")}</td></tr>`).join("") + `</tbody></table>`;
    }
    h += `</section>`;
  }
  return h;
}

// ---- trace ---------------------------------------------------------------

function renderTrace() {
  if (!info.trace) {
    return `<h2>Trace</h2><p class="notice">This console only reads: trace a flow with <code>antreaplus trace</code>, or from <code>antreaplus console</code> on your machine, with your own credentials.</p>`;
  }
  const f = filters.trace || { from: "", to: "", port: "", protocol: "TCP" };
  return `<h2 id="view-title">Trace a flow</h2><p class="muted">The path of one flow across members, clouds and VMs, and the rule that decides it at every enforcement point (<code>antreaplus trace</code>).</p>` +
    `<form id="trace-form" class="filters"><label>From<input name="from" required value="${esc(f.from)}" placeholder="member-1:vm/dev-build-1"></label>` +
    `<label>To<input name="to" required value="${esc(f.to)}" placeholder="member-2:vm/dev-build-2 or web.shop.svc.clusterset.local"></label>` +
    `<label>Port<input name="port" type="number" min="0" max="65535" value="${esc(f.port)}" placeholder="8080"></label>` +
    `<label>Protocol<select name="protocol">${["TCP", "UDP", "SCTP"].map((p) => `<option ${p === f.protocol ? "selected" : ""}>${p}</option>`).join("")}</select></label>` +
    `<label><span>Live</span><input name="live" type="checkbox"></label><button class="primary" type="submit">Trace</button></form><div id="trace-out" aria-live="polite"></div>`;
}

function renderTraceResult(r) {
  const t = r.report.trace;
  let h = `<p class="verdict" data-verdict="${esc(t.verdict)}">${esc(r.report.from)} → ${esc(r.report.to)} ${esc(r.report.protocol)}${r.report.port ? "/" + r.report.port : ""}: ${badge(t.verdict.toUpperCase(), t.verdict === "allowed" ? "ok" : "bad")}</p><ol class="path">`;
  for (const s of t.steps) {
    const head = s.kind === "dns" ? `name resolution in ${s.member}` : s.kind === "leg" ? "the packet" : `${s.kind}${s.point ? ` at ${s.point} in ${s.member} (enforced by ${s.enforcer})` : ""}`;
    h += `<li class="${esc(s.verdict || "allowed")}"><strong>${esc(head)}</strong>${s.verdict ? " " + badge(s.verdict, s.verdict === "allowed" ? "ok" : s.verdict === "undecided" ? "warn" : "bad") : ""}<div>${esc(s.note)}</div>`;
    const o = (r.report.live || []).find((x) => x.member === s.member && x.point.externalEntity === s.point && x.point.direction.toLowerCase() === s.kind);
    if (o && o.point.observed) h += `<div class="muted">observed: ${esc(o.point.observed.verdict)} ${esc(o.point.observed.rule || "")} ${o.point.agrees ? badge("agrees", "ok") : badge("differs", "bad")}</div>`;
    h += `</li>`;
  }
  h += `</ol><p class="muted">read ${esc(r.report.took.read)}, decided ${esc(r.report.took.decide)} by ${esc(r.report.took.by)}</p>`;
  for (const n of (r.notes || []).filter(Boolean)) h += `<p class="notice">${esc(n)}</p>`;
  return h;
}

async function submitTrace(ev) {
  ev.preventDefault();
  const fd = new FormData(ev.target);
  filters.trace = { from: fd.get("from"), to: fd.get("to"), port: fd.get("port"), protocol: fd.get("protocol") };
  const out = $("#trace-out");
  out.innerHTML = `<p class="muted">tracing…</p>`;
  const resp = await fetch("/api/trace", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ from: fd.get("from"), to: fd.get("to"), port: Number(fd.get("port") || 0), protocol: fd.get("protocol"), live: fd.get("live") === "on" }) });
  if (!resp.ok) { out.innerHTML = `<p class="notice bad" role="alert">${esc(await resp.text())}</p>`; return; }
  out.innerHTML = renderTraceResult(await resp.json());
  rendered("trace", "result");
}

// ---- the page ------------------------------------------------------------

const renderers = { federation: renderFederation, services: renderServices, policies: renderPolicies, clouds: renderClouds };

function draw(view, data, version) {
  const main = $("#main");
  const open = new Set([...main.querySelectorAll("details[open]")].map((d) => d.dataset.key));
  const focused = document.activeElement && document.activeElement.id;
  const scroll = window.scrollY;
  details = {};
  const out = renderers[view](data);
  const [html, count] = Array.isArray(out) ? out : [out, ""];
  main.innerHTML = html;
  if (count) $("#count").textContent = count;
  for (const d of main.querySelectorAll("details[data-key]")) {
    if (open.has(d.dataset.key)) { fill(d); d.open = true; }
  }
  if (focused && document.getElementById(focused)) {
    const el = document.getElementById(focused);
    el.focus();
    if (el.setSelectionRange && el.type === "search") el.setSelectionRange(el.value.length, el.value.length);
  }
  window.scrollTo(0, scroll);
  rendered(view, version);
}

// fill renders a row's details, once, when it opens.
function fill(d) {
  const more = d.querySelector(".more");
  const f = details[d.dataset.key];
  if (more && f && !more.childElementCount) more.innerHTML = f();
}

document.addEventListener("toggle", (e) => {
  if (e.target.matches && e.target.matches("details[data-key]") && e.target.open) fill(e.target);
}, true);

// pending is the latest version a view's events brought that is not drawn
// yet: versions that arrive while one is drawn are skipped to the newest.
let pending = null;

function schedule(view, raw, version) {
  const first = pending === null;
  pending = { view, raw, version };
  if (!first) return;
  setTimeout(() => {
    const p = pending;
    pending = null;
    if (p.view !== current) return;
    const wasShown = $("#main").dataset.view === p.view;
    latest = JSON.parse(p.raw);
    draw(p.view, latest, p.version);
    if (wasShown) announce(`${p.view} updated`);
  }, 0);
}

function follow(view) {
  if (source) source.close();
  latest = null;
  const live = $("#live");
  source = new EventSource(`/api/events/${view}`);
  source.addEventListener("view", (e) => {
    schedule(view, e.data, e.lastEventId);
    live.textContent = "live"; live.className = "live ok";
  });
  source.addEventListener("problem", (e) => { live.textContent = e.data; live.className = "live bad"; });
  source.onerror = () => { live.textContent = "reconnecting…"; live.className = "live bad"; };
}

function show() {
  const view = (location.hash.replace(/^#\//, "") || "federation").split("?")[0];
  current = view;
  for (const a of document.querySelectorAll("nav a")) {
    if (a.dataset.view === view) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  document.title = `${view[0].toUpperCase() + view.slice(1)} · AntreaPlus console`;
  if (view === "trace") {
    if (source) { source.close(); source = null; }
    $("#live").textContent = "traces on demand"; $("#live").className = "live";
    $("#main").innerHTML = renderTrace();
    rendered("trace", "form");
    const form = $("#trace-form");
    if (form) form.addEventListener("submit", submitTrace);
    return;
  }
  if (!renderers[view]) { $("#main").innerHTML = `<p class="notice">No view ${esc(view)}.</p>`; return; }
  $("#main").innerHTML = `<p class="muted">Loading ${esc(view)}…</p>`;
  follow(view);
}

document.addEventListener("click", (e) => {
  const b = e.target.closest("button[data-copy]");
  if (!b) return;
  navigator.clipboard?.writeText(b.dataset.copy).then(() => { b.textContent = "copied"; announce("copied"); setTimeout(() => { b.textContent = "copy"; }, 1500); });
});

document.addEventListener("input", (e) => {
  const id = e.target.id;
  if (!latest || !id || !id.startsWith("f-")) return;
  if (current === "services") filters.services = { q: $("#f-q").value };
  if (current === "policies") filters.policies = { member: $("#f-member").value, ns: $("#f-ns").value, state: $("#f-state").value };
  draw(current, latest, $("#main").dataset.version);
});

async function start() {
  try {
    const r = await fetch("/api/info");
    if (r.ok) info = await r.json();
  } catch { /* the view's events say what is wrong */ }
  $("#viewer").textContent = info.viewer ? `signed in as ${info.viewer.name}` : "";
  window.addEventListener("hashchange", show);
  show();
}

start();
