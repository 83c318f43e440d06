"""The web pages of ``tablebase serve`` in a real browser: headless Chromium from Debian's
``chromium`` package, driven by selenium through Debian's ``chromium-driver``.

A real ``tablebase serve`` process answers on loopback. Each test opens a position,
clicks a winning move and sees the board and the value change. Screenshots are kept in
``$TABLEBASE_ARTIFACTS/screenshots`` (default ``artifacts/screenshots`` in the working
directory). Without a browser the tests skip, saying why.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from urllib.parse import urlencode

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")

from selenium.webdriver.common.by import By  # noqa: E402

from tablebase.build.builder import build  # noqa: E402
from tablebase.solve.registry import load_game  # noqa: E402
from tablebase.store import open_store  # noqa: E402
from tests.serving import served  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
SCREENSHOTS = Path(os.environ.get("TABLEBASE_ARTIFACTS", "artifacts")) / "screenshots"

pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="no headless browser: install Debian's chromium and chromium-driver (.ci/run does)",
)


DOBUTSU_ENDGAME = "l../.../.../.L. Cc"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    database = tmp_path_factory.mktemp("browser") / "tb.sqlite"
    with open_store(database) as store:
        build(load_game("tictactoe"), store)
        build(load_game("connect4", {"width": "4", "height": "4"}), store)
        build(load_game("chess", {"material": "KQvK"}), store)
        build(load_game("atomic", {"material": "KQvK"}), store)
        build(load_game("antichess", {"material": "RvN"}), store)
        build(load_game("kalah", {"pits": "3", "seeds": "3"}), store)
        build(load_game("morris", {"men": "3"}), store)
        build(load_game("dobutsu", {"start": DOBUTSU_ENDGAME}), store)
    with served(database) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--window-size=1200,900",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def snapshot(browser, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def play_a_winning_move(browser, url: str, name: str) -> None:
    """Open a position, click its first winning move, and check that the page now shows
    the position after it, lost for the new side to move, on a changed board."""
    browser.get(url)
    board_before = browser.find_element(By.ID, "board").get_attribute("innerHTML")
    assert "win" in browser.find_element(By.ID, "value").text
    snapshot(browser, f"{name}-before")
    move = browser.find_element(By.CSS_SELECTOR, "a.move.win")
    label = move.text
    move.click()
    assert "loss" in browser.find_element(By.ID, "value").text, label
    assert browser.find_element(By.ID, "board").get_attribute("innerHTML") != board_before
    snapshot(browser, f"{name}-after")


def test_chess_position_plays_a_winning_move(server, browser):
    play_a_winning_move(browser, server + "/play/chess?" + urlencode({"position": "4k3/8/8/8/8/8/8/4KQ2 w - - 0 1"}), "chess")
    assert "b - -" in browser.find_element(By.ID, "position-text").text
    browser.find_element(By.ID, "flip").click()
    assert "flip=1" in browser.current_url
    snapshot(browser, "chess-flipped")


@pytest.mark.parametrize(("variant", "fen"), [("atomic", "8/8/8/3k4/8/8/8/KQ6 w - - 0 1"), ("antichess", "8/8/8/8/3n4/8/8/R7 w - - 0 1")])
def test_variant_positions_play_a_winning_move(server, browser, variant, fen):
    """The atomic and antichess pages draw the board and play a move as chess's do."""
    play_a_winning_move(browser, server + f"/play/{variant}?" + urlencode({"position": fen}), variant)


def test_tictactoe_position_plays_a_winning_move(server, browser):
    play_a_winning_move(browser, server + "/play/tictactoe?" + urlencode({"position": "xx./oo./..."}), "tictactoe")
    assert browser.find_element(By.ID, "position-text").text == "xxx/oo./..."


def test_connect4_position_plays_a_winning_move(server, browser):
    url = server + "/play/connect4?" + urlencode({"width": 4, "height": 4, "position": "1212 12"})
    play_a_winning_move(browser, url, "connect4")
    assert len(browser.find_elements(By.CSS_SELECTOR, "td.cell.x")) == 4


def test_kalah_position_plays_a_winning_move(server, browser):
    play_a_winning_move(browser, server + "/play/kalah?" + urlencode({"pits": 3, "seeds": 3, "position": "start"}), "kalah")
    seeds = [int(pit.text) for pit in browser.find_elements(By.CSS_SELECTOR, "table.pits td.pit")]
    assert len(seeds) == 6 and sum(seeds) <= 18
    assert "margin" in browser.find_element(By.ID, "moves").text


def test_morris_board_shows_the_men_and_moves_by_value(server, browser):
    browser.get(server + "/play/morris?" + urlencode({"men": 3, "position": "start"}))
    moves = browser.find_elements(By.CSS_SELECTOR, "a.move")
    assert len(moves) == 16 and {move.get_attribute("data-outcome") for move in moves} <= {"win", "draw", "loss"}
    assert not browser.find_elements(By.CSS_SELECTOR, "svg.morris circle")
    moves[0].click()
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg.morris circle.x")) == 1
    snapshot(browser, "morris")


def test_dobutsu_board_names_the_pieces_and_plays_a_winning_move(server, browser):
    url = server + "/play/dobutsu?" + urlencode({"start": DOBUTSU_ENDGAME, "position": "start"})
    browser.get(url)
    assert [cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "table.shogi td.square") if cell.text] == ["L", "L"]
    assert "chick" in browser.find_element(By.CSS_SELECTOR, "p.hand.mine").text
    play_a_winning_move(browser, url, "dobutsu")
    assert len(browser.find_elements(By.CSS_SELECTOR, "table.shogi td.theirs")) == 1


def test_best_line_and_statistics_pages(server, browser):
    browser.get(server + "/play/tictactoe?" + urlencode({"position": "start"}))
    browser.find_element(By.ID, "best-line").click()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#line li")) == 9
    browser.find_element(By.ID, "statistics").click()
    assert browser.find_element(By.ID, "histogram").get_attribute("naturalWidth") not in (None, "0")
    snapshot(browser, "tictactoe-statistics")
