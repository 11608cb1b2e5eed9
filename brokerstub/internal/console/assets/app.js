// brokerstub console: a page per view, each following its view live over
// server-sent events (read with fetch, so that credentials travel in the
// Authorization header). No framework, no build step.
"use strict";

const $ = (sel) => document.querySelector(sel);
const esc = (v) => String(v ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const num = (n) => (n === undefined || n === null ? "" : Number(n).toLocaleString("en-US"));
const rate = (r) => (r ? Number(r).toFixed(1) + "/s" : "0/s");
const bytes = (n) => {
  if (!n) return "0 B";
  const u = ["B", "KiB", "MiB", "GiB"];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : n) + " " + u[i];
};
const palette = ["#2f5fd0", "#dc6803", "#039855", "#7a5af8", "#c11574", "#0e9384", "#b54708", "#475467", "#6172f3", "#e31b54"];
const AUTH_KEY = "brokerstub-console-auth";

// topicPath turns "persistent://t/ns/x" into the URL path "persistent/t/ns/x".
function topicPath(full) {
  const m = /^([a-z-]+):\/\/([^/]+)\/([^/]+)\/(.+)$/.exec(full);
  if (!m) return "";
  return [m[1], m[2], m[3], m[4]].map(encodeURIComponent).join("/");
}
function topicFromPath(parts) {
  if (parts.length < 4) return "";
  return parts[0] + "://" + parts[1] + "/" + parts[2] + "/" + parts[3];
}

function headers(stream) {
  const h = {};
  const auth = sessionStorage.getItem(AUTH_KEY);
  if (auth) h.Authorization = auth;
  if (stream) h.Accept = "text/event-stream";
  return h;
}

function showProblem(text) {
  const p = $("#problem");
  p.hidden = !text;
  p.textContent = text || "";
}

function setLive(on) {
  const l = $("#live");
  l.className = "live " + (on ? "on" : "off");
  l.textContent = on ? "live" : "offline";
}

// follow reads an SSE stream from url and calls onState with each view;
// it reconnects after a drop until the returned stop is called.
function follow(url, onState) {
  const ctl = new AbortController();
  let stopped = false;
  const run = async () => {
    while (!stopped) {
      try {
        const res = await fetch(url, { headers: headers(true), signal: ctl.signal });
        if (res.status === 401 || res.status === 403) {
          const body = await res.json().catch(() => ({}));
          refused(res.status, body.reason || res.statusText);
          return;
        }
        if (!res.ok) {
          const body = await res.json().catch(() => ({}));
          showProblem(res.status + ": " + (body.reason || res.statusText));
        } else {
          setLive(true);
          await readEvents(res.body, (event, data) => {
            if (event === "state") {
              showProblem("");
              onState(JSON.parse(data));
            } else if (event === "problem") {
              const p = JSON.parse(data);
              showProblem(p.status + ": " + p.reason);
            }
          });
        }
      } catch (e) {
        if (stopped || e.name === "AbortError") return;
      }
      setLive(false);
      if (!stopped) await new Promise((r) => setTimeout(r, 1000));
    }
  };
  run();
  return () => { stopped = true; ctl.abort(); setLive(false); };
}

async function readEvents(body, fn) {
  const reader = body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += dec.decode(value, { stream: true });
    let i;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      if (data.length) fn(event, data.join("\n"));
    }
  }
}

function refused(status, reason) {
  if (status === 401 && /Authentication required/.test(reason)) {
    $("#login").hidden = false;
    showProblem("Sign in to see this broker.");
    return;
  }
  showProblem("Refused for role " + (who.role || "(none)") + ": " + reason);
  $("#view").innerHTML = `<div class="card refused" data-refused="1"><h1>Refused</h1><p>${esc(reason)}</p><p class="muted">The console asks what the admin API would: a super-user, the tenant's admin, or the operation's permission.</p></div>`;
}

let who = {};
async function loadWho() {
  try {
    const res = await fetch("/console/api/whoami", { headers: headers(false) });
    if (res.status === 401) {
      $("#login").hidden = false;
      $("#who").textContent = "not signed in";
      return false;
    }
    who = await res.json();
  } catch (e) {
    $("#who").textContent = "broker unreachable";
    return false;
  }
  let text = who.role ? "role " + who.role : "anonymous";
  if (!who.authorization) text += " · authorization off";
  else if (who.superUser) text += " · super-user";
  else if (who.tenantAdmin && who.tenantAdmin.length) text += " · admin of " + who.tenantAdmin.join(", ");
  $("#who").textContent = text;
  $("#who").dataset.role = who.role || "";
  return true;
}

$("#login").addEventListener("submit", (ev) => {
  ev.preventDefault();
  const v = $("#token").value.trim();
  if (!v) return;
  sessionStorage.setItem(AUTH_KEY, v.includes(":") && !v.startsWith("ey") ? "Basic " + btoa(v) : "Bearer " + v);
  $("#login").hidden = true;
  start();
});

function crumbs(items) {
  $("#crumbs").innerHTML = items.map(([label, href]) => (href ? `<a href="${esc(href)}">${esc(label)}</a>` : `<span>${esc(label)}</span>`)).join(" / ");
}

function policies(p) {
  if (!p || !Object.keys(p).length) return '<span class="muted">none set</span>';
  return Object.keys(p).sort().map((k) => `<span class="tag" title="${esc(JSON.stringify(p[k]))}">${esc(k)}=${esc(JSON.stringify(p[k]).slice(0, 40))}</span>`).join(" ");
}

// Page 1: tenants, namespaces, topics.
function overview(v) {
  let html = "<h1>Tenants, namespaces and topics</h1>";
  if (!v.tenants.length) html += '<p class="muted">No tenant yet.</p>';
  for (const t of v.tenants) {
    html += `<section class="card" data-tenant="${esc(t.name)}"><h2>${esc(t.name)}</h2>`;
    if (t.adminRoles && t.adminRoles.length) html += `<p class="muted">admins: ${esc(t.adminRoles.join(", "))}</p>`;
    for (const ns of t.namespaces) {
      html += `<h2 data-namespace="${esc(ns.name)}">${esc(ns.name)}</h2><p class="policies">policies: ${ns.policiesRefused ? `<span class="tag warn">refused: ${esc(ns.policiesRefused)}</span>` : policies(ns.policies)}</p>`;
      if (!ns.topics.length) { html += '<p class="muted">no topics</p>'; continue; }
      html += '<div class="scroll"><table><thead><tr><th>topic</th><th class="n">in</th><th class="n">out</th><th class="n">backlog</th><th class="n hide-s">storage</th><th class="n hide-s">prod</th><th class="n hide-s">subs</th><th class="n hide-s">cons</th><th class="hide-s">topic policies</th></tr></thead><tbody>';
      for (const tp of ns.topics) {
        const short = tp.name.replace(/^[a-z-]+:\/\/[^/]+\/[^/]+\//, "");
        html += `<tr data-topic="${esc(tp.name)}"><td><a href="#/topic/${topicPath(tp.name)}">${esc(short)}</a>${tp.name.startsWith("non-persistent") ? ' <span class="tag">non-persistent</span>' : ""}${tp.loaded ? "" : ' <span class="tag">not loaded</span>'}</td>
<td class="n" data-k="rateIn">${rate(tp.rateIn)}<br><span class="muted">${num(tp.msgIn)}</span></td><td class="n">${rate(tp.rateOut)}<br><span class="muted">${num(tp.msgOut)}</span></td>
<td class="n" data-k="backlog">${num(tp.backlog)}</td><td class="n hide-s">${bytes(tp.storageSize)}</td><td class="n hide-s">${tp.producers}</td><td class="n hide-s">${tp.subscriptions}</td><td class="n hide-s">${tp.consumers}</td><td class="hide-s">${tp.policies ? policies(tp.policies) : ""}</td></tr>`;
      }
      html += "</tbody></table></div>";
    }
    html += "</section>";
  }
  if (v.refused && v.refused.length) {
    html += '<section class="card refused"><h2>Not shown to this role</h2><ul>' + v.refused.map((r) => `<li>${esc(r.what)}: ${esc(r.operation)} refused</li>`).join("") + "</ul></section>";
  }
  $("#view").innerHTML = html;
}

// Page 2: a topic.
function topicPage(v) {
  const tp = topicPath(v.name);
  let html = `<h1>${esc(v.name)} ${v.terminated ? '<span class="tag bad">terminated</span>' : ""}</h1>
<div class="card"><dl class="kv"><dt>in</dt><dd data-k="msgIn">${rate(v.rateIn)} · ${num(v.msgIn)} messages, ${bytes(v.bytesIn)}</dd><dt>out</dt><dd>${rate(v.rateOut)} · ${num(v.msgOut)} messages</dd>
<dt>backlog</dt><dd>${num(v.backlog)} entries</dd><dt>storage</dt><dd>${bytes(v.storageSize)}</dd><dt>schema</dt><dd>${esc(v.schema || "none")}</dd>
<dt>entries</dt><dd>${v.first ? esc(v.first) + " … " + esc(v.last) : "none"} · <a href="#/messages/${tp}">browse messages</a></dd><dt>topic policies</dt><dd class="policies">${policies(v.policies)}</dd></dl></div>
<h2>Producers (${v.producers.length})</h2>`;
  if (v.producers.length) {
    html += '<div class="scroll card"><table><thead><tr><th>name</th><th>access mode</th><th class="n">rate</th><th class="n">messages</th><th class="hide-s">address</th></tr></thead><tbody>' +
      v.producers.map((p) => `<tr data-producer="${esc(p.name)}"><td>${esc(p.name)} <span class="muted">#${p.id}</span></td><td>${esc(p.accessMode)}</td><td class="n">${rate(p.rateIn)}</td><td class="n">${num(p.msgIn)}</td><td class="hide-s">${esc(p.address)}</td></tr>`).join("") + "</tbody></table></div>";
  }
  if (v.waitingProducers && v.waitingProducers.length) html += `<p>waiting for exclusive access: ${esc(v.waitingProducers.join(", "))}</p>`;
  html += `<h2>Subscriptions (${v.subscriptions.length})</h2>`;
  if (v.subscriptions.length) {
    html += '<div class="scroll card"><table><thead><tr><th>name</th><th>type</th><th class="n">backlog</th><th class="n">unacked</th><th class="n">redeliveries</th><th class="n hide-s">out</th><th class="hide-s">mark-delete</th><th>consumers</th></tr></thead><tbody>' +
      v.subscriptions.map((s) => `<tr data-sub="${esc(s.name)}"><td><a href="#/cursor/${tp}/${encodeURIComponent(s.name)}">${esc(s.name)}</a>${s.type === "Key_Shared" ? ` · <a href="#/keyshared/${tp}/${encodeURIComponent(s.name)}">Key_Shared</a>` : ""}${s.durable ? "" : ' <span class="tag">non-durable</span>'}${s.blocked ? ' <span class="tag bad">blocked</span>' : ""}</td>
<td>${esc(s.type)}</td><td class="n" data-k="backlog">${num(s.backlog)}</td><td class="n" data-k="unacked">${num(s.unacked)}</td><td class="n">${num(s.redeliveries)}</td><td class="n hide-s">${rate(s.rateOut)}</td><td class="hide-s">${esc(s.markDelete)}</td>
<td>${s.consumers.map((c) => `<span class="tag${s.active === c.name ? " ok" : ""}" data-consumer="${esc(c.name)}">${esc(c.name)} · ${num(c.permits)} permits · ${num(c.unacked)} unacked</span>`).join(" ")}</td></tr>`).join("") + "</tbody></table></div>";
  }
  html += `<h2>Ledgers (${v.ledgers.length})</h2><div class="scroll card"><table><thead><tr><th>ledger</th><th class="n">entries</th><th class="n">size</th><th></th></tr></thead><tbody>` +
    v.ledgers.map((l) => `<tr><td>${l.id}</td><td class="n">${num(l.entries)}</td><td class="n">${bytes(l.size)}</td><td>${l.current ? '<span class="tag ok">current</span>' : ""}</td></tr>`).join("") + "</tbody></table></div>";
  $("#view").innerHTML = html;
}

// Page 3: a subscription's cursor as a line of entries.
function cursorPage(v) {
  const s = v.subscription;
  const tp = topicPath(v.topic);
  let html = `<h1>${esc(s.name)} <span class="tag">${esc(s.type)}</span></h1>
<div class="card"><dl class="kv"><dt>topic</dt><dd><a href="#/topic/${tp}">${esc(v.topic)}</a></dd><dt>mark-delete</dt><dd id="markdelete">${esc(s.markDelete)}</dd><dt>persisted</dt><dd>${esc(v.persisted)}${v.persisted !== s.markDelete ? ' <span class="tag warn">not flushed: a crash goes back here</span>' : ""}</dd>
<dt>read position</dt><dd>${esc(s.readPosition)}</dd><dt>backlog</dt><dd>${num(s.backlog)} · unacked ${num(s.unacked)} · redeliveries ${num(s.redeliveries)}</dd>
<dt>acked ranges</dt><dd id="ranges">${v.ackedRanges.length ? v.ackedRanges.map((r) => `[${esc(r[0])}..${esc(r[1])}]`).join(" ") : '<span class="muted">none</span>'}</dd>
<dt>replay set</dt><dd>${num(v.replay)}</dd><dt>delayed</dt><dd>${num(v.delayed)}</dd><dt>pending acks (txn)</dt><dd>${num(v.pendingAcks)}</dd>
<dt>consumers</dt><dd>${s.consumers.map((c) => `<span class="tag" data-consumer="${esc(c.name)}">${esc(c.name)} · ${num(c.permits)} permits · ${num(c.unacked)} unacked</span>`).join(" ") || '<span class="muted">none</span>'}${s.type === "Key_Shared" ? ` · <a href="#/keyshared/${tp}/${encodeURIComponent(s.name)}">Key_Shared dispatcher</a>` : ""}</dd></dl></div>
<div class="legend">${["acked", "partial", "pending", "replay", "delayed", "unread", "held"].map((k) => `<span><span class="ent ${k}"></span>${k}</span>`).join("")}<span><span class="ent unread txn"></span>txn</span></div>
<div class="card"><div class="line" id="line"><span class="ent md" title="mark-delete ${esc(s.markDelete)}"></span>`;
  for (const e of v.entries) {
    let inner = esc(e.pos.split(":")[1]);
    if (e.batch && e.ackedIndexes && e.ackedIndexes.length) {
      inner = '<span class="bits">' + Array.from({ length: Math.min(e.batch, 32) }, (_, i) => `<i class="${(e.ackedIndexes || []).includes(i) ? "a" : ""}"></i>`).join("") + "</span>";
    }
    const title = [e.pos, e.state, e.consumer && "at " + e.consumer, e.key && "key " + e.key, e.hash !== undefined && "hash " + e.hash, e.batch && "batch of " + e.batch,
      e.ackedIndexes && "acked " + e.ackedIndexes.join(","), e.redelivered && "redelivered " + e.redelivered, e.deliverAt && "deliver at " + new Date(e.deliverAt).toISOString(),
      e.txn && "txn " + e.txn, e.txnAck && "pending ack " + e.txnAck, e.chunk && "chunk " + e.chunk].filter(Boolean).join(" · ");
    html += `<span class="ent ${esc(e.state)}${e.txn || e.txnAck ? " txn" : ""}" data-entry="${esc(e.pos)}" data-state="${esc(e.state)}" title="${esc(title)}">${inner}</span>`;
  }
  html += "</div>" + (v.more ? `<p class="muted">first ${v.limit} entries after mark-delete shown</p>` : "") + (v.entries.length ? "" : '<p class="muted">nothing after mark-delete</p>') + "</div>";
  const notable = v.entries.filter((e) => e.state !== "unread" && e.state !== "acked" || e.txn || e.txnAck);
  if (notable.length) {
    html += '<h2>Entries not yet acknowledged</h2><div class="scroll card"><table><thead><tr><th>position</th><th>state</th><th>consumer</th><th>key / hash</th><th>batch</th><th class="hide-s">other</th></tr></thead><tbody>' +
      notable.slice(0, 200).map((e) => `<tr data-row="${esc(e.pos)}"><td>${esc(e.pos)}</td><td>${esc(e.state)}</td><td>${esc(e.consumer)}</td><td>${esc(e.key)}${e.hash !== undefined ? " / " + e.hash : ""}</td>
<td>${e.batch ? e.batch + (e.ackedIndexes ? " · acked " + e.ackedIndexes.join(",") : "") : ""}</td><td class="hide-s">${[e.redelivered && "redelivered " + e.redelivered, e.deliverAt && "deliver at " + new Date(e.deliverAt).toISOString(), e.txn && "txn " + e.txn, e.txnAck && "pending ack " + e.txnAck + (e.txnAckIndexes ? " idx " + e.txnAckIndexes.join(",") : ""), e.chunk && "chunk " + e.chunk].filter(Boolean).map(esc).join("<br>")}</td></tr>`).join("") + "</tbody></table></div>";
  }
  $("#view").innerHTML = html;
}

// Page 4: a Key_Shared dispatcher.
function keySharedPage(v) {
  const tp = topicPath(v.topic);
  const color = {};
  v.consumers.forEach((c, i) => { color[c.id + "/" + c.name] = palette[i % palette.length]; });
  const span = v.rangeEnd - v.rangeStart + 1;
  const pct = (h) => ((h - v.rangeStart) / span) * 100;
  let html = `<h1>Key_Shared · ${esc(v.subscription)}</h1>
<div class="card"><dl class="kv"><dt>topic</dt><dd><a href="#/topic/${tp}">${esc(v.topic)}</a> · <a href="#/cursor/${tp}/${encodeURIComponent(v.subscription)}">cursor</a></dd>
<dt>mode</dt><dd>${esc(v.mode)} · ${esc(v.selector)}${v.allowOutOfOrderDelivery ? ' <span class="tag warn">out of order allowed</span>' : ' <span class="tag">ordered</span>'}</dd>
<dt>hash range</dt><dd>[${v.rangeStart}, ${v.rangeEnd}]</dd><dt>read / mark-delete</dt><dd>${esc(v.readPosition)} / ${esc(v.markDelete)}</dd>
<dt>replay set</dt><dd id="replay">${num(v.replaySize)} of look-ahead ${num(v.lookAheadLimit)}</dd>
<dt>new entries</dt><dd id="normalread">${v.normalReadStopped ? `<span class="tag bad">not read</span> ${esc(v.normalReadStopped)}` : '<span class="tag ok">read</span>'}</dd></dl></div>
<h2>Hash ranges</h2><div class="card"><div class="ring" id="ring">`;
  for (const r of v.ranges) {
    const c = color[r.consumer + "/" + r.name] || "#98a2b3";
    html += `<div class="seg" data-range-owner="${esc(r.name)}" style="left:${pct(r.start)}%;width:${Math.max(pct(r.end + 1) - pct(r.start), 0.2)}%;background:${c}" title="[${r.start}, ${r.end}] ${esc(r.name)}">${esc(r.name)}</div>`;
  }
  let labelled = -100; // a label only where it does not cover the last one
  for (const d of [...v.draining].sort((a, b) => a.hash - b.hash)) {
    const at = pct(d.hash);
    const label = at - labelled > 4 ? `<span>${d.hash}</span>` : "";
    if (label) labelled = at;
    html += `<div class="mark" data-draining-hash="${d.hash}" style="left:${at}%" title="hash ${d.hash} draining at ${esc(d.heldBy)}, ${d.unacked} outstanding">${label}</div>`;
  }
  html += `</div><div class="axis"><span>${v.rangeStart}</span><span>${Math.round((v.rangeStart + v.rangeEnd) / 2)}</span><span>${v.rangeEnd}</span></div></div>
<h2>Consumers (${v.consumers.length})</h2><div class="scroll card"><table><thead><tr><th>consumer</th><th class="n">share</th><th class="n">permits</th><th class="n">unacked</th><th class="n hide-s">pending entries</th><th class="n">draining</th></tr></thead><tbody>` +
    v.consumers.map((c) => `<tr data-consumer="${esc(c.name)}"><td><span class="swatch" style="background:${color[c.id + "/" + c.name]}"></span>${esc(c.name)} <span class="muted">#${c.id}</span></td><td class="n">${(c.share * 100).toFixed(1)}%</td>
<td class="n" data-k="permits">${num(c.permits)}${c.permits <= 0 ? ' <span class="tag bad">none</span>' : ""}</td><td class="n" data-k="unacked">${num(c.unacked)}</td><td class="n hide-s">${num(c.pendingEntries)}</td><td class="n">${num(c.draining)}</td></tr>`).join("") +
    (v.consumers.length ? "" : '<tr><td colspan="6" class="muted">no consumer: nothing is dispatched</td></tr>') + "</tbody></table></div>";
  html += `<h2>Draining hashes (${v.draining.length})</h2>`;
  html += v.draining.length ? '<div class="scroll card"><table><thead><tr><th>hash</th><th>held by</th><th>waiting owner</th><th class="n">outstanding</th><th class="n">times blocked</th></tr></thead><tbody>' +
    v.draining.map((d) => `<tr data-draining="${d.hash}"><td>${d.hash}</td><td>${esc(d.heldBy)}</td><td>${esc(d.owner || "-")}</td><td class="n">${num(d.unacked)}</td><td class="n">${num(d.blocked)}</td></tr>`).join("") + "</tbody></table></div>"
    : '<p class="muted" id="nodraining">No hash is draining: every hash is dispatched to the consumer that owns it.</p>';
  html += `<h2>Held back in the replay set (${v.heldBack.length}${v.heldBackMore ? "+" : ""})</h2>`;
  html += v.heldBack.length ? '<div class="scroll card"><table><thead><tr><th>position</th><th>key</th><th class="n">hash</th><th>why</th></tr></thead><tbody>' +
    v.heldBack.map((h) => `<tr data-held="${esc(h.pos)}"><td>${esc(h.pos)}</td><td>${esc(h.key)}</td><td class="n">${h.hash}</td><td>${esc(h.reason)}</td></tr>`).join("") + "</tbody></table></div>"
    : '<p class="muted">The replay set is empty.</p>';
  $("#view").innerHTML = html;
}

// Page 5: the message browser.
function messagesPage(v, from) {
  const tp = topicPath(v.topic);
  let html = `<h1>Messages · <a href="#/topic/${tp}">${esc(v.topic)}</a></h1>
<p class="muted">schema ${esc(v.schema || "none")} · entries ${v.first ? esc(v.first) + " … " + esc(v.last) : "none"}</p>
<div class="controls">${v.prev ? `<a href="#/messages/${tp}?from=${esc(v.prev)}">◀ previous</a>` : ""}${v.next ? `<a href="#/messages/${tp}?from=${esc(v.next)}">next ▶</a>` : ""}</div>`;
  if (!v.entries.length) html += '<p class="muted">No entry at or after this position.</p>';
  for (const e of v.entries) {
    html += `<section class="card" data-msg-entry="${esc(e.pos)}"><dl class="kv"><dt>position</dt><dd><b>${esc(e.pos)}</b> · ${num(e.size)} bytes${e.compression ? " · " + esc(e.compression) : ""}</dd>
<dt>published</dt><dd>${e.publishTime ? new Date(e.publishTime).toISOString() : ""} by ${esc(e.producer)} seq ${e.sequence}</dd>
${e.key ? `<dt>key</dt><dd>${esc(e.key)}</dd>` : ""}${e.batch ? `<dt>batch</dt><dd>${e.batch} messages</dd>` : ""}
${e.chunk ? `<dt>chunk</dt><dd>${e.chunk.id + 1} of ${e.chunk.of} · uuid ${esc(e.chunk.uuid)} · total ${num(e.chunk.totalSize)} bytes</dd>` : ""}
${e.deliverAt ? `<dt>deliver at</dt><dd>${new Date(e.deliverAt).toISOString()}</dd>` : ""}${e.txn ? `<dt>transaction</dt><dd>${esc(e.txn)}</dd>` : ""}${e.marker ? `<dt>marker</dt><dd>${esc(e.marker)}</dd>` : ""}
${e.properties ? `<dt>properties</dt><dd>${Object.keys(e.properties).map((k) => `<span class="tag">${esc(k)}=${esc(e.properties[k])}</span>`).join(" ")}</dd>` : ""}
${e.error ? `<dt>problem</dt><dd class="problem">${esc(e.error)}</dd>` : ""}</dl>`;
    for (const m of e.messages) {
      html += `<div data-msg="${esc(e.pos)}#${m.index}">${e.batch ? `<b>[${m.index}]</b> ` : ""}${m.key && e.batch ? `key ${esc(m.key)} ` : ""}${m.properties && e.batch ? Object.keys(m.properties).map((k) => `<span class="tag">${esc(k)}=${esc(m.properties[k])}</span>`).join(" ") : ""}
<span class="muted">${num(m.size)} bytes · ${esc(m.decoding)}</span>${m.null ? " <i>null value</i>" : `<pre>${esc(m.value)}</pre>`}</div>`;
    }
    html += "</section>";
  }
  $("#view").innerHTML = html;
  void from;
}

let stop = null;
function route() {
  if (stop) { stop(); stop = null; }
  showProblem("");
  const hash = location.hash.replace(/^#\/?/, "");
  const [path, query] = hash.split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query || "");
  const kind = parts.shift() || "";
  const topic = topicFromPath(parts);
  const api = (name, extra) => "/console/api/" + name + "/" + parts.slice(0, 4).map(encodeURIComponent).join("/") + (extra || "");
  const top = ["overview", "#/"];
  const tcrumb = [topic.replace(/^[a-z-]+:\/\//, ""), "#/topic/" + topicPath(topic)];
  $("#view").innerHTML = '<p class="muted">loading…</p>';
  switch (kind) {
    case "":
      crumbs([top]);
      stop = follow("/console/api/overview", overview);
      break;
    case "topic":
      crumbs([top, [tcrumb[0]]]);
      stop = follow(api("topic"), topicPage);
      break;
    case "cursor":
      crumbs([top, tcrumb, ["cursor " + (parts[4] || "")]]);
      stop = follow(api("cursor", "/" + encodeURIComponent(parts[4] || "")), cursorPage);
      break;
    case "keyshared":
      crumbs([top, tcrumb, ["Key_Shared " + (parts[4] || "")]]);
      stop = follow(api("keyshared", "/" + encodeURIComponent(parts[4] || "")), keySharedPage);
      break;
    case "messages": {
      crumbs([top, tcrumb, ["messages"]]);
      const from = params.get("from") || "";
      stop = follow(api("messages", "?n=20" + (from ? "&from=" + encodeURIComponent(from) : "")), (v) => messagesPage(v, from));
      break;
    }
    default:
      crumbs([top]);
      $("#view").innerHTML = '<p class="muted">No such page.</p>';
  }
}

async function start() {
  if (await loadWho()) route();
}
window.addEventListener("hashchange", route);
start();
