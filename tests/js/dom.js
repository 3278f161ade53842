/* dom.js: the least of a DOM that kix-verify.js's page part uses, for
 * js.page: elements with attributes, classes, children and text,
 * getElementById, querySelectorAll on "tag", "[attr]", "[attr=\"v\"]" and
 * their combinations, createElement; and fetch over a map of files. */
'use strict';

class Element {
  constructor(tag, attrs, children) {
    this.tagName = tag.toUpperCase();
    this.attrs = new Map(Object.entries(attrs || {}));
    this.children = [];
    this.text = '';
    this.style = {};
    const self = this;
    this.classList = {
      add(c) { const s = self.classes(); if (!s.includes(c)) self.setAttribute('class', s.concat(c).join(' ')); },
      remove(c) { if (self.attrs.has('class')) self.setAttribute('class', self.classes().filter((x) => x !== c).join(' ')); },
      contains(c) { return self.classes().includes(c); }
    };
    for (const c of children || []) typeof c === 'string' ? (this.text += c) : this.appendChild(c);
  }
  classes() { return (this.attrs.get('class') || '').split(' ').filter(Boolean); }
  getAttribute(n) { return this.attrs.has(n) ? this.attrs.get(n) : null; }
  setAttribute(n, v) { this.attrs.set(n, String(v)); }
  hasAttribute(n) { return this.attrs.has(n); }
  get textContent() { return this.text + this.children.map((c) => c.textContent).join(''); }
  set textContent(t) { this.children = []; this.text = String(t); }
  get firstChild() { return this.children[0] || (this.text ? { text: true } : null); }
  appendChild(c) { c.parent = this; this.children.push(c); return c; }
  removeChild(c) {
    if (c.text === true) this.text = '';
    else this.children = this.children.filter((x) => x !== c);
    return c;
  }
  *walk() { for (const c of this.children) { yield c; yield* c.walk(); } }
  matches(sel) {
    const m = /^([a-z]*)((?:\[[a-z-]+(?:="[^"]*")?\])*)$/.exec(sel);
    if (!m) throw new Error('dom.js: selector ' + sel);
    if (m[1] && this.tagName !== m[1].toUpperCase()) return false;
    for (const a of m[2].matchAll(/\[([a-z-]+)(?:="([^"]*)")?\]/g))
      if (!this.attrs.has(a[1]) || (a[2] !== undefined && this.attrs.get(a[1]) !== a[2])) return false;
    return true;
  }
  querySelectorAll(sel) { return [...this.walk()].filter((e) => e.matches(sel)); }
  querySelector(sel) { return this.querySelectorAll(sel)[0] || null; }
}

function h(tag, attrs, ...children) { return new Element(tag, attrs, children); }

function documentOf(body, href) {
  return {
    body, readyState: 'complete', location: { href },
    getElementById(id) { return [...body.walk()].find((e) => e.getAttribute('id') === id) || null; },
    querySelectorAll(sel) { return body.querySelectorAll(sel); },
    createElement(tag) { return new Element(tag); },
    addEventListener() { throw new Error('dom.js: the document is already loaded'); }
  };
}

function fetchOf(files, origin) {
  return async (url) => {
    const u = new URL(url);
    const p = u.origin === origin ? u.pathname.slice(1) : null;
    if (p === null || !files.has(p)) return { ok: false, status: 404 };
    const b = new Uint8Array(files.get(p));
    return { ok: true, status: 200, arrayBuffer: async () => b.buffer.slice(b.byteOffset, b.byteOffset + b.length) };
  };
}

module.exports = { Element, h, documentOf, fetchOf };
