"""Houses the rules know: the names a house is written under and its lines and flankers.

Domain knowledge, written down once: which words name a house (its spellings and the
abbreviations shops print, "YSL", "D&G", "C.K"), which lines and flankers it sells ("1
Million", "1 Million Lucky", "1 Million Royal"), and which of its lines are famous enough
that a title naming only the line names the house (a listing "Sauvage Eau de Parfum" under
the brand "As Show" is Dior's). A line whose name states its strength ("Code Profumo")
carries it: its listings are one variation whatever concentration each seller typed.

Look-alikes are no house's products: a title that says "inspired by", "version", "dupe",
"impression" or sells a pheromone copy ("made stronger with pheromones") is marked as a
look-alike and keys apart from the original; a near-spelling ("Savage", "A-v-entus",
"Hogo Boss") is simply not the line's name, so it never reads as the line.

A house or line missing here is read as before (the brand field, the words of the name):
the table only ever adds certainty, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from catalogue.identity.text import NUMBER_WORDS, fold, words

# slug: names (comma-separated) | lines (semicolon-separated; "line=variation" when the
# line's name states its strength, "wording~line" for a common other wording of a line) |
# lines that alone name the house.
_TABLE = """
dior: dior, christian dior | sauvage; sauvage elixir=elixir; eau sauvage; fahrenheit; homme;
    dior homme; homme intense; higher | sauvage; fahrenheit; eau sauvage
creed: creed | aventus; silver mountain water; green irish tweed; virgin island water; millesime
    imperial; viking; himalaya | aventus; silver mountain water; green irish tweed; virgin
    island water
giorgio-armani: giorgio armani, armani, emporio armani | acqua di gio; aqua di gio~acqua di gio;
    acqua di gio absolu; acqua di gio profumo=parfum; acqua di gio profondo; code; code
    profumo=parfum; code absolu; stronger with you; stronger with you intensely; stronger with
    you absolutely; stronger with you oud; stronger with you amber | acqua di gio; aqua di gio;
    stronger with you
dolce-and-gabbana: dolce and gabbana, dolce gabbana, d and g, dg | light blue; light blue eau
    intense; light blue summer vibes; light blue italian love; the one; the one luminous night;
    k; pour homme | light blue
yves-saint-laurent: yves saint laurent, ysl, saint laurent | y; y eau fraiche; la nuit de
    lhomme; lanuit de lhomme~la nuit de lhomme; la nuit de lhomme bleu electrique; lhomme;
    myslf; kouros; m7 | la nuit de lhomme; myslf
paco-rabanne: paco rabanne | 1 million; 1 million lucky; 1 million royal=parfum; 1 million
    prive; 1 million golden oud; invictus; invictus legend; invictus platinum; invictus victory;
    invictus victory elixir; invictus intense; invictus aqua; phantom; pure xs; pure xs night;
    xs; ultrared; pour homme | 1 million; invictus
azzaro: azzaro, loris azzaro | pour homme; chrome; chrome legend; chrome sport; most wanted;
    wanted; wanted tonic; sport
armaf: armaf | club de nuit; club de nuit intense; club de nuit untold; club de nuit sillage;
    club de nuit milestone; club de nuit iconic; club de nuit urban elixir=elixir; club de nuit
    urban man elixir~club de nuit urban elixir=elixir; club de nuit precieux 1; odyssey homme;
    odyssey mandarin sky; odyssey aoud; tag him; tag him uomo rosso; tag uomo rosso~tag him uomo
    rosso; tres nuit; tres nuit lyric; ventana marine; hunter; le parfait; nomad the wanderer
abercrombie-and-fitch: abercrombie and fitch, abercrombie | fierce; fierce intense; first
    instinct
afnan: afnan | supremacy in heaven; supremacy not only intense; supremacy incense; turathi blue;
    turathi brown; 9am dive; 9 am dive~9am dive; 9pm; 9 pm~9pm; modest une; penthouse ginza;
    ornament
rasasi: rasasi | hawas; hawas ice; hawas black; its essential; dareej; brilliant silver | hawas
bharara: bharara | king; king pure; double bleu
burberry: burberry | hero; touch; london; london classic; classic; weekend; brit; mr burberry
bvlgari: bvlgari, bulgari | pour homme; aqva marine; aqva; man in black; man; le gemme tygar;
    tygar; rose goldea
calvin-klein: calvin klein, ck, c k | one; eternity; eternity air; eternity flame; obsession;
    obsession night; euphoria; escape; truth; ck free; free
carolina-herrera: carolina herrera | 212; 212 nyc~212; 212 men nyc~212; 212 vip; 212 sexy; bad
    boy; bad boy cobalt; bad boy le parfum; bad boy dazzling garden; herrera; ch men prive; ch
    sport
coach: coach | green; blue; new york; platinum
davidoff: davidoff | cool water; cool water intense | cool water
diesel: diesel | fuel for life; only the brave; only the brave street; d by diesel
givenchy: givenchy | gentleman; gentleman reserve privee; gentleman boisee; gentleman society;
    gentleman society extreme; gentlemen only; pi; pour homme
gucci: gucci | guilty; guilty black; guilty elixir; guilty absolute
guerlain: guerlain | imperiale; eau de cologne imperiale~imperiale; heritage; vetiver; lhomme
    ideal
guy-laroche: guy laroche | drakkar noir; drakkar intense; drakkar
hermes: hermes | terre dhermes; terre dhermes eau givree; h24; eau dorange verte
hugo-boss: hugo boss, boss | the scent; bottled; bottled parfum; bottled infinite; bottled
    night; bottled unlimited; unlimited; hugo; reversed
issey-miyake: issey miyake | leau dissey; leau dissey intense; fusion dissey; fusion dissey
    extreme
jean-paul-gaultier: jean paul gaultier, jpg | le male; le male le parfum; le male elixir; le
    beau; le beau le parfum; scandal; ultra male
jimmy-choo: jimmy choo | man; man intense; man ice; man aqua; man blue
lacoste: lacoste | l 12 12 blanc; l 12 12 rouge; lhomme; lhomme intense; essential; style in
    play
lalique: lalique | encre noire; encre noire a lextreme; pour homme lion; lalique
lattafa: lattafa | hayaati; hayaati al maleky; fakhar; ramz gold; ramz silver; opulent oud;
    asad; khamrah; qaed al fursan; ajayeb dubai portrait; sheikh al shuyukh
liz-claiborne: liz claiborne | curve; curve crush; curve chill; curve wave; bora bora; candies
    man
maison-margiela: maison margiela, maison martin margiela | replica jazz club; replica sailing
    day; replica by the fireplace
mercedes-benz: mercedes benz, mercedez benz | club black; intense; mercedes benz
montblanc: montblanc, mont blanc | legend; legend spirit; legend night; legend red; explorer;
    explorer platinum; starwalker; individuel
moschino: moschino | toy boy; uomo
nautica: nautica | voyage; voyage heritage; blue
perry-ellis: perry ellis | 360; 360 red; 360 white; perry ellis
prada: prada | lhomme; lhomme intense; luna rossa; luna rossa black; luna rossa carbon; luna
    rossa ocean; luna rossa sport; luna rossa extreme
ralph-lauren: ralph lauren, lauren ralph lauren | polo; polo black; polo double black; polo
    blue; polo green; polo red; polo red extreme; polo sport; polo 67; safari; ralphs club
salvatore-ferragamo: salvatore ferragamo, ferragamo | f pour homme; f black; f free time;
    intense leather; uomo; uomo urban feel; acqua essenziale
valentino: valentino | uomo; uomo born in roma; uomo born in roma coral fantasy; uomo born in
    roma yellow dream; uomo born in roma intense
versace: versace, gianni versace | eros; eros flame; dylan blue; pour homme; pour homme
    signature~signature; signature; eau fraiche; man eau fraiche~eau fraiche; man fraiche~eau
    fraiche; lhomme; the dreamer; blue jeans | eros; eros flame
viktor-and-rolf: viktor and rolf, victor and rolf | spicebomb; spicebomb extreme; spicebomb
    night vision; spicebomb infrared
zara: zara | red sand dunes; sunrise on the red sand dunes~red sand dunes
yves-de-sistelle: yves de sistelle | thallium; thallium anonymous
"""

# Words that make a title a look-alike of the product it names, never the product.
_LOOKALIKE = re.compile(
    r"\b(?:inspired|inspiration|impressions?|version|dupe|clone|alternative\s+to|"
    r"our\s+take|pheromones?|pheromone-infused|stronger\s+with)\b"
    # "Savage ... not Sauvage": the seller says which product it is not.
    r"|\bnot\s+(?!only\b)(?=[a-z])"
)
# A product of a line that is not its fragrance: the after-shave, the deodorant, the body
# spray or lotion of "Euphoria" is another product than Euphoria.
_BODY = re.compile(
    r"\b(?:after\s*shave|aftershave|deodorant|deo|antiperspirant|shower\s+gel|"
    r"body\s+(?:spray|lotion|mist|wash|oil|cream)|hair\s+mist|balm)\b"
)
# The punctuation a seller puts inside a name ("ARM.ANI", "Y*S*L", "C.K").
_INNER_PUNCTUATION = re.compile(r"(?<=[a-z])[.*](?=[a-z])")


@dataclass(frozen=True)
class Line:
    words: tuple[str, ...]
    variation: str = ""
    # The line's own key when these words are another wording of it.
    canonical: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return " ".join(self.canonical or self.words)

    @property
    def generic(self) -> bool:
        """Made only of words any house uses ("Pour Homme"): the line of last resort."""
        return all(w in _GENERIC_LINE_WORDS for w in self.words)


_GENERIC_LINE_WORDS = frozenset({"pour", "homme", "men", "man", "for", "him", "lhomme"})


@dataclass(frozen=True)
class HouseRule:
    slug: str
    names: tuple[tuple[str, ...], ...]
    lines: tuple[Line, ...]
    signature_lines: tuple[tuple[str, ...], ...] = ()

    @property
    def display(self) -> str:
        return " ".join(self.names[0]).title()


def _numbered(phrase: str) -> tuple[str, ...]:
    return tuple(NUMBER_WORDS.get(w, w) for w in words(phrase))


def _entries(table: str) -> list[str]:
    """One entry per house; an indented line continues the one before."""
    entries: list[str] = []
    for line in table.strip().splitlines():
        if line.startswith(" ") and entries:
            entries[-1] += " " + line.strip()
        else:
            entries.append(line)
    return entries


def _parse(table: str) -> dict[str, HouseRule]:
    houses = {}
    for raw in _entries(table):
        slug, _, rest = raw.partition(":")
        parts = [p.strip() for p in rest.split("|")]
        names = tuple(tuple(words(n)) for n in parts[0].split(",") if n.strip())
        lines = []
        for spec in parts[1].split(";") if len(parts) > 1 else ():
            phrase, _, variation = spec.partition("=")
            phrase, _, canonical = phrase.partition("~")
            if phrase.strip():
                lines.append(Line(_numbered(phrase), variation.strip(), _numbered(canonical)))
        signature = tuple(
            _numbered(s) for s in (parts[2].split(";") if len(parts) > 2 else ()) if s.strip()
        )
        houses[slug.strip()] = HouseRule(slug.strip(), names, tuple(lines), signature)
    return houses


HOUSES: dict[str, HouseRule] = _parse(_TABLE)
_BY_NAME: dict[tuple[str, ...], str] = {
    name: house.slug for house in HOUSES.values() for name in house.names
}
_BY_SIGNATURE: dict[tuple[str, ...], str] = {
    line: house.slug for house in HOUSES.values() for line in house.signature_lines
}


def name_words(text: str | None) -> list[str]:
    """The words of a name with punctuation inside a word closed up ("ARM.ANI" is
    "armani", "Y*S*L" is "ysl")."""
    return words(_INNER_PUNCTUATION.sub("", fold(text)))


def _find(tokens: list[str], phrases) -> list[tuple[int, tuple[str, ...]]]:
    found = []
    for phrase in phrases:
        n = len(phrase)
        for i in range(len(tokens) - n + 1):
            if tuple(tokens[i : i + n]) == phrase:
                found.append((i, phrase))
    return found


def house_named(text: str | None) -> str | None:
    """The house a text names (the longest name found, the first of equals), or None."""
    found = _find(name_words(text), _BY_NAME)
    if not found:
        return None
    found.sort(key=lambda f: (-len(f[1]), f[0]))
    return _BY_NAME[found[0][1]]


def house_by_signature_line(text: str | None) -> str | None:
    """The house whose famous line a text names when it names no house at all."""
    found = _find([NUMBER_WORDS.get(t, t) for t in name_words(text)], _BY_SIGNATURE)
    houses = {_BY_SIGNATURE[phrase] for _, phrase in found}
    return houses.pop() if len(houses) == 1 else None


def lookalike(text: str | None) -> bool:
    return bool(_LOOKALIKE.search(fold(text)))


def body_product(*texts: str | None) -> bool:
    return any(_BODY.search(fold(t)) for t in texts if t)


def read_house(brand: str | None, name: str | None, *, placeholder: bool) -> str | None:
    """The house the rules read from a listing's brand field and name, or None to keep the
    brand field's own fold.

    The brand field wins when it names a known house (whatever its punctuation) and the
    name does not credit another one with "by"; a placeholder brand or a brand field the
    rules do not know as a house gives way to a house the name names, and failing that to
    the house of a famous line the name names.
    """
    from_brand = house_named(brand) if not placeholder else None
    from_name = house_named(name)
    if from_brand:
        credited = _credited(name)
        if credited and credited != from_brand and not _names(name, from_brand):
            return credited
        return from_brand
    if from_name:
        return from_name
    if placeholder:
        return house_by_signature_line(name)
    return None


def _credited(name: str | None) -> str | None:
    tokens = name_words(name)
    for i, word in enumerate(tokens):
        if word == "by":
            house = house_named(" ".join(tokens[i + 1 : i + 5]))
            if house:
                return house
    return None


def _names(name: str | None, slug: str) -> bool:
    return bool(_find(name_words(name), HOUSES[slug].names))


def known_line(slug: str | None, tokens: list[str]) -> tuple[Line, int, int] | None:
    """The house's longest line found in ``tokens``, with where it starts and ends."""
    house = HOUSES.get(slug or "")
    if house is None:
        return None
    best, rank = None, None
    for line in house.lines:
        n = len(line.words)
        for i in range(len(tokens) - n + 1):
            if tuple(tokens[i : i + n]) == line.words:
                mine = (not line.generic, n, -i)
                if rank is None or mine > rank:
                    best, rank = (line, i, i + n), mine
    return best


def line_words(slug: str | None, *, besides: str = "") -> frozenset[str]:
    """Every word of the house's lines other than the line ``besides`` (and its other
    wordings): an extra one of them beside a line is another line."""
    house = HOUSES.get(slug or "")
    if house is None:
        return frozenset()
    own = {w for line in house.lines if line.key == besides for w in line.words}
    others = {w for line in house.lines if line.key != besides for w in line.words}
    return frozenset(others - own) - _GENERIC_LINE_WORDS
