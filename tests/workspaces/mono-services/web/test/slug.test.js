import { test } from "node:test";
import assert from "node:assert/strict";
import { slug } from "../src/slug.js";

test("slug joins words with dashes", () => {
  assert.equal(slug("Hello World"), "hello-world");
});

test("slug drops punctuation", () => {
  assert.equal(slug("Hello, World!"), "hello-world");
});
