// Text sent for some points only (a map past 20,000 points) spread to one entry a point, and what the tooltip
// writes for a point whose text was not sent.
import { test } from "node:test";
import assert from "node:assert/strict";

import { fieldValue, spreadTexts, tipTitle } from "../../app/ui/map/logic.js";

const b64 = (ints) => Buffer.from(new Int32Array(ints).buffer).toString("base64");

test("some texts are spread to their points and the others are null", () => {
  const labels = spreadTexts({ index: b64([1, 4]), text: ["b", "e"] }, 6);
  assert.deepEqual(labels, [null, "b", null, null, "e", null]);
  assert.deepEqual(spreadTexts(["a", "b"], 2), ["a", "b"]);
  assert.equal(spreadTexts(null, 3), null);
});

test("a point without text is named by its number, and a text field says it was not sent", () => {
  const frame = { labels: spreadTexts({ index: b64([2]), text: ["c"] }, 4), ids: null, rowIds: false };
  assert.equal(tipTitle(frame, 2), "c");
  assert.equal(tipTitle(frame, 0), "#0");
  const field = { name: "title", values: frame.labels };
  assert.equal(fieldValue(field, 2), "c");
  assert.equal(fieldValue(field, 1), "(not sent at this size)");
});
