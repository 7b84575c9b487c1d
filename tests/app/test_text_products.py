"""Text page: the dictionary inner product in min(|a|, |b|) lookups beside the merge, and an SVM on hashed
features against the unhashed vocabulary."""

from __future__ import annotations

from tests.conftest import assert_clean, metric, open_page, open_tab, table_with

PAGE = "app_pages/text.py"


def _int(value: str) -> int:
    return int(value.replace(",", ""))


def test_the_dictionaries_need_min_a_b_lookups_and_agree_with_the_merge():
    at = open_tab(open_page(PAGE), "text.tab", "Sparse inner products")
    assert_clean(at)
    sizes = [_int(v) for v in metric(at, "|a|, |b|").split(", ")]
    assert _int(metric(at, "dictionary lookups")) == min(sizes)
    assert metric(at, "⟨a, b⟩ by the dictionaries") == metric(at, "⟨a, b⟩ by the merge")
    assert _int(metric(at, "dictionary lookups")) <= _int(metric(at, "merge comparisons"))
    at.toggle(key="text.dict_smaller").set_value(False).run()
    assert_clean(at)
    assert _int(metric(at, "dictionary lookups")) == sizes[0]
    assert metric(at, "⟨a, b⟩ by the dictionaries") == metric(at, "⟨a, b⟩ by the merge")


def test_the_svm_on_hashed_features_runs_from_its_button_and_falls_only_with_few_buckets():
    at = open_tab(open_page(PAGE), "text.tab", "Feature hashing")
    assert_clean(at)
    assert not any("vs unhashed" in str(d.value.columns) or "diff" in d.value.columns for d in at.dataframe)
    at.button(key="text.svm_run").click().run(timeout=300)
    assert_clean(at)
    table = table_with(at, "diff").set_index("features")
    assert len(table) == 8 and table.loc["vocabulary (unhashed)", "accuracy"] > 0.9
    assert table.loc["hashed, b = 4", "diff"] < -0.1 and abs(table.loc["hashed, b = 16", "diff"]) < 0.05
    unsigned = at.toggle(key="text.svm_signed").set_value(False).run()
    assert not any("diff" in d.value.columns for d in unsigned.dataframe)  # another setting: not run yet
