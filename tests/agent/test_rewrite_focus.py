"""A rewrite round keeps the products the question named: the rule rewrite appends the user's medicines
to rank caution sections, and the linker must not read them as new products to answer about."""

from __future__ import annotations

from dataclasses import replace

from yaksa.lexicon.focus import analyse


def test_a_remembered_medicine_does_not_join_the_products_of_a_rewrite(make_runner, settings, tmp_path) -> None:
    """"타이레놀 하루 최대 몇 알?" from a user who takes ibuprofen got an ibuprofen product's dosing (the
    full bundle, 2026-11-27): the rewrite "… 고혈압 이부프로펜" was searched with a focus of its own."""
    # every answer below the bar: the judge asks for a rewrite, as it did on the full bundle
    strict = replace(settings, agent=replace(settings.agent, quality_threshold=1.0))
    runner = make_runner(strict.with_state_in(tmp_path))
    catalog = runner.deps.searcher.catalog
    ibuprofen = {seq for seq, p in catalog.products.items() if "이부프로펜" in p.ingredients[:1]}
    assert ibuprofen and analyse("타이레놀 하루 최대 몇 알 먹어도 돼요? 고혈압 이부프로펜", catalog).linking.mentions
    runner.run("저는 고혈압이 있고 이부프로펜을 먹고 있어요", "ibu")
    result = runner.run("타이레놀 하루 최대 몇 알 먹어도 돼요?", "ibu")
    assert result.trace["iterations"] >= 2, "the judge asked for a rewrite (the case under test)"
    assert "이부프로펜" in result.trace["rewrites"][0]["query"]
    cited = {c.metadata.get("item_seq") for c in result.citations}
    assert cited and not cited & ibuprofen, [c.title for c in result.citations]
