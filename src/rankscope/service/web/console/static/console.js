// rankscope's web console: live progress by polling the JSON API, the per-question table,
// and the new-evaluation form. Plain JavaScript, no library.
"use strict";

const api = document.body.dataset.api;
const ACTIVE = ["pending", "running"];

function metric(value) {
  return typeof value === "number" && isFinite(value) ? value.toFixed(4) : "–";
}

function seconds(value) {
  if (typeof value !== "number") return "–";
  if (value < 60) return value.toFixed(1) + " s";
  const whole = Math.floor(value);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, "0");
  return hours ? `${hours} h ${String(minutes).padStart(2, "0")} min` : `${minutes} min ${rest} s`;
}

async function getJSON(url) {
  const response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
  if (response.status === 401) {
    window.location.assign("/signin?next=" + encodeURIComponent(window.location.pathname));
    throw new Error("signed out");
  }
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
}

function setStatus(element, status) {
  element.textContent = status;
  element.className = "status status-" + status;
}

function tally(counts) {
  const pairs = Object.entries(counts || {});
  return pairs.length ? " (" + pairs.map(([key, n]) => `${key} ${n}`).join(", ") + ")" : "";
}

function sum(counts) {
  return Object.values(counts || {}).reduce((total, n) => total + n, 0);
}

// The judge's askings, calls, tokens and cost, as the task page's template words them.
function judgeTallies(t) {
  let text = `Judge: ${t.askings} askings, ${sum(t.failed)} without a grade${tally(t.failures)}; ` +
    `${sum(t.calls)} calls${tally(t.calls)}`;
  if (t.prompt_tokens || t.completion_tokens) {
    text += `; tokens ${t.prompt_tokens} prompt, ${t.completion_tokens} completion`;
  }
  if (t.cost) text += `; cost ${t.cost.toFixed(4)}`;
  return text;
}

function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
}

// --- the task list --------------------------------------------------------------------------

function taskList() {
  const rows = new Map();
  document.querySelectorAll("#tasks tbody tr").forEach((row) => rows.set(row.dataset.task, row));
  const offset = new URLSearchParams(window.location.search).get("offset") || "0";

  function update(task) {
    const row = rows.get(task.id);
    if (!row) return;
    row.dataset.status = task.status;
    setStatus(row.querySelector('[data-field="status"]'), task.status);
    const bar = row.querySelector('[data-field="bar"]');
    bar.max = task.progress.total || 1;
    bar.value = task.progress.finished;
    const failed = task.progress.failed ? ` (${task.progress.failed} failed)` : "";
    row.querySelector('[data-field="count"]').textContent =
      `${task.progress.finished} / ${task.progress.total}${failed}`;
    const cell = row.querySelector('[data-field="metrics"]');
    cell.replaceChildren();
    task.measures.slice(0, 3).forEach((name) => {
      const span = element("span");
      span.append(element("abbr", name), " " + metric(task.metrics[name]));
      cell.append(span, " ");
    });
    row.querySelector('[data-field="duration"]').textContent = seconds(task.active_seconds);
  }

  async function poll() {
    const active = [...rows.values()].some((row) => ACTIVE.includes(row.dataset.status));
    if (!active) return;
    try {
      const page = await getJSON(`${api}?limit=50&offset=${encodeURIComponent(offset)}`);
      page.items.forEach(update);
    } catch (error) {
      console.warn(error.message);
    }
    window.setTimeout(poll, 1000);
  }
  window.setTimeout(poll, 500);
}

// --- the judging tasks beside them ----------------------------------------------------------

function judgingList() {
  const table = document.getElementById("judging-tasks");
  if (!table) return;
  const rows = new Map();
  table.querySelectorAll("tbody tr").forEach((row) => rows.set(row.dataset.judging, row));

  function update(judging) {
    const row = rows.get(judging.id);
    if (!row) return;
    row.dataset.status = judging.status;
    setStatus(row.querySelector('[data-field="status"]'), judging.status);
    const p = judging.progress;
    const judged = p.graded + p.failed;
    const bar = row.querySelector('[data-field="bar"]');
    bar.max = p.total || 1;
    bar.value = judged;
    const failed = p.failed ? ` (${p.failed} failed)` : "";
    row.querySelector('[data-field="count"]').textContent = `${judged} / ${p.total} pairs${failed}`;
    row.querySelector('[data-field="duration"]').textContent = seconds(judging.active_seconds);
  }

  async function poll() {
    const active = [...rows.values()].some((row) => ACTIVE.includes(row.dataset.status));
    if (!active) return;
    try {
      const offset = encodeURIComponent(table.dataset.offset || "0");
      const page = await getJSON(`${table.dataset.api}?limit=50&offset=${offset}`);
      page.items.forEach(update);
    } catch (error) {
      console.warn(error.message);
    }
    window.setTimeout(poll, 1000);
  }
  window.setTimeout(poll, 500);
}

// --- a task's page --------------------------------------------------------------------------

function taskPage() {
  const root = document.getElementById("task");
  const id = root.dataset.task;
  const table = document.getElementById("queries");
  const measures = root.dataset.measures.split(" ").filter(Boolean);
  const answerMeasures = root.dataset.answerMeasures.split(" ").filter(Boolean);
  const answers = root.dataset.answers === "yes";
  const state = { sort: "", search: "", status: "", limit: 50, offset: 0, total: 0 };

  function showButtons(status) {
    document.querySelectorAll(".buttons form[data-when]").forEach((form) => {
      form.hidden = !form.dataset.when.split(" ").includes(status);
    });
  }

  function update(task) {
    root.dataset.status = task.status;
    setStatus(root.querySelector('[data-field="status"]'), task.status);
    showButtons(task.status);
    const progress = document.getElementById("progress");
    progress.max = task.progress.total || 1;
    progress.value = task.progress.finished;
    const percent = Math.round(100 * task.progress.fraction);
    const failed = task.progress.failed ? `, ${task.progress.failed} failed` : "";
    document.getElementById("progress-text").textContent =
      `${task.progress.finished} of ${task.progress.total} questions (${percent} %)${failed}`;
    document.querySelectorAll("[data-metric]").forEach((cell) => {
      cell.textContent = metric(task.metrics[cell.dataset.metric]);
    });
    document.querySelectorAll("[data-answer-metric]").forEach((cell) => {
      cell.textContent = metric(task.answers ? task.answers.metrics[cell.dataset.answerMetric] : null);
    });
    document.querySelectorAll("[data-answer-count]").forEach((cell) => {
      const count = task.answers ? task.answers.counts[cell.dataset.answerCount] : null;
      if (!count) return;
      const failed = count.failed ? `, ${count.failed} not graded` : "";
      cell.textContent = `over ${count.scored} answers${failed}`;
    });
    const tallies = document.getElementById("judge-tallies");
    if (tallies && task.answers && task.answers.tallies) {
      tallies.textContent = judgeTallies(task.answers.tallies);
    }
    document.querySelectorAll("[data-latency]").forEach((cell) => {
      const value = task.latency_ms ? task.latency_ms[cell.dataset.latency] : null;
      cell.textContent = typeof value === "number" ? value.toFixed(1) : "–";
    });
    document.getElementById("throughput").textContent = task.queries_per_second
      ? task.queries_per_second.toFixed(1) + " questions/s"
      : "–";
    document.getElementById("duration").textContent = seconds(task.active_seconds);
    document.getElementById("failed-count").textContent = task.progress.failed;
    const error = root.parentElement.querySelector('[data-field="error"]');
    error.hidden = !task.error;
    error.textContent = task.error || "";
  }

  function row(record) {
    const tr = element("tr");
    tr.dataset.query = record.query_id;
    tr.append(element("td", String(record.position + 1), "num"));
    const id = element("td");
    id.append(element("code", record.query_id));
    tr.append(id);
    tr.append(element("td", record.status, "status-cell"));
    measures.forEach((name) => {
      const value = record.metrics ? record.metrics[name] : null;
      tr.append(element("td", metric(value), "num"));
    });
    answerMeasures.forEach((name) => {
      const value = record.answer_metrics ? record.answer_metrics[name] : null;
      tr.append(element("td", metric(value), "num"));
    });
    const latency = typeof record.latency === "number" ? (record.latency * 1000).toFixed(1) : "–";
    tr.append(element("td", latency, "num"));
    tr.append(element("td", String(record.attempts), "num"));
    const retrieved = record.status === "failed" ? record.error || "" : record.doc_ids.slice(0, 5).join(" ");
    tr.append(element("td", retrieved, record.status === "failed" ? "error-text ids" : "ids"));
    if (answers) {
      tr.append(element("td", record.answer === null ? "–" : record.answer, "answer"));
      const references = record.references ? record.references.join(" | ") : "–";
      tr.append(element("td", references, "answer reference"));
    }
    return tr;
  }

  async function loadQueries() {
    const query = new URLSearchParams({ limit: state.limit, offset: state.offset });
    if (state.sort) query.set("sort", state.sort);
    if (state.search) query.set("search", state.search);
    if (state.status) query.set("status", state.status);
    let page;
    try {
      page = await getJSON(`${api}/${encodeURIComponent(id)}/queries?${query}`);
    } catch (error) {
      console.warn(error.message);
      return;
    }
    state.total = page.total;
    table.tBodies[0].replaceChildren(...page.items.map(row));
    const last = Math.min(state.offset + page.items.length, page.total);
    document.getElementById("page-text").textContent = page.total
      ? `${state.offset + 1}–${last} of ${page.total}`
      : "no question recorded" + (state.search || state.status ? " matches" : " yet");
    document.getElementById("previous").disabled = state.offset === 0;
    document.getElementById("next").disabled = last >= page.total;
    table.dataset.loaded = String(Date.now());
  }

  table.querySelectorAll("th button[data-sort]").forEach((button) => {
    button.addEventListener("click", () => {
      const key = button.dataset.sort;
      const descending = state.sort === key; // a second click reverses the order
      state.sort = descending ? "-" + key : key;
      state.offset = 0;
      table.querySelectorAll("th button[data-sort]").forEach((other) => other.removeAttribute("aria-sort"));
      button.setAttribute("aria-sort", descending ? "descending" : "ascending");
      loadQueries();
    });
  });
  let typing = null;
  document.getElementById("search").addEventListener("input", (event) => {
    window.clearTimeout(typing);
    typing = window.setTimeout(() => {
      state.search = event.target.value.trim();
      state.offset = 0;
      loadQueries();
    }, 250);
  });
  document.getElementById("status-filter").addEventListener("change", (event) => {
    state.status = event.target.value;
    state.offset = 0;
    loadQueries();
  });
  document.getElementById("page-size").addEventListener("change", (event) => {
    state.limit = Number(event.target.value);
    state.offset = 0;
    loadQueries();
  });
  document.getElementById("previous").addEventListener("click", () => {
    state.offset = Math.max(0, state.offset - state.limit);
    loadQueries();
  });
  document.getElementById("next").addEventListener("click", () => {
    state.offset += state.limit;
    loadQueries();
  });

  async function poll() {
    if (!ACTIVE.includes(root.dataset.status)) return;
    try {
      const task = await getJSON(`${api}/${encodeURIComponent(id)}`);
      update(task);
      await loadQueries();
      if (!ACTIVE.includes(task.status)) {
        // Finished: the page again, with exact means and percentiles and every failure.
        window.location.reload();
        return;
      }
    } catch (error) {
      console.warn(error.message);
    }
    window.setTimeout(poll, 1000);
  }

  showButtons(root.dataset.status);
  loadQueries();
  window.setTimeout(poll, 500);
}

// --- the new-evaluation form ----------------------------------------------------------------

function newTaskForm() {
  const form = document.getElementById("new-task");
  function show() {
    const kind = (form.querySelector('input[name="retriever"]:checked') || {}).value;
    form.querySelectorAll(".kind").forEach((block) => {
      block.hidden = block.dataset.kind !== kind;
    });
    const profile = form.querySelector("#profile").value;
    form.querySelectorAll(".profile").forEach((block) => {
      block.hidden = (block.dataset.profile === "weknora") !== (profile === "weknora");
      block.querySelectorAll("input").forEach((input) => {
        input.disabled = block.hidden;
      });
    });
  }
  form.addEventListener("change", show);
  show();
}

function generatorChoice() {
  const form = document.getElementById("new-task");
  function show() {
    const kind = (form.querySelector('input[name="generator"]:checked') || {}).value;
    form.querySelectorAll(".generator").forEach((block) => {
      block.hidden = !block.dataset.generator.split(" ").includes(kind);
      block.querySelectorAll("input, textarea").forEach((input) => {
        input.disabled = block.hidden;
      });
    });
  }
  form.addEventListener("change", show);
  show();
}

// --- the comparison picker on the task list ---------------------------------------------------

function compareSelection() {
  const form = document.getElementById("compare-form");
  if (!form) return;
  const button = document.getElementById("compare-selected");
  function count() {
    button.disabled = form.querySelectorAll('input[name="task"]:checked').length < 2;
  }
  form.addEventListener("change", count);
  count();
}

// --- a judging task's page ---------------------------------------------------------------

function judgingPage() {
  const root = document.getElementById("judging");
  const url = `${root.dataset.api}/${encodeURIComponent(root.dataset.judging)}`;

  function update(judging) {
    root.dataset.status = judging.status;
    setStatus(root.querySelector('[data-field="status"]'), judging.status);
    document.querySelectorAll(".buttons form[data-when]").forEach((form) => {
      form.hidden = !form.dataset.when.split(" ").includes(judging.status);
    });
    const p = judging.progress;
    const judged = p.graded + p.failed;
    const bar = document.getElementById("progress");
    bar.max = p.total || 1;
    bar.value = judged;
    document.getElementById("progress-text").textContent =
      `${judged} of ${p.total} pairs judged (${Math.round(100 * p.fraction)} %): ` +
      `${p.graded} graded, ${p.failed} failed, ${p.pending} pending`;
    document.getElementById("failed-count").textContent = p.failed;
  }

  async function poll() {
    if (!ACTIVE.includes(root.dataset.status)) return;
    try {
      const judging = await getJSON(url);
      update(judging);
      if (!ACTIVE.includes(judging.status)) {
        // Finished: the page again, with the agreement and the task scored again.
        window.location.reload();
        return;
      }
    } catch (error) {
      console.warn(error.message);
    }
    window.setTimeout(poll, 1000);
  }
  document.querySelectorAll(".buttons form[data-when]").forEach((form) => {
    form.hidden = !form.dataset.when.split(" ").includes(root.dataset.status);
  });
  window.setTimeout(poll, 1000);
}

const pages = {
  judging: judgingPage,
  tasks: () => {
    taskList();
    judgingList();
    compareSelection();
  },
  task: taskPage,
  new: () => {
    newTaskForm();
    generatorChoice();
  },
};
(pages[document.body.dataset.page] || (() => {}))();
