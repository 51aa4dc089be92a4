"""Template helpers of the hand-history pages: cards drawn as the table page draws them (table.css)."""

from django import template
from django.utils.formats import number_format
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _

from cashier.amounts import format_amount

register = template.Library()

SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


@register.simple_tag
def playing_cards(cards, size: str = "mini"):
    """``["As", "Td"]`` as the table's small face-up cards (nothing for ``None``)."""
    return format_html_join(
        "",
        '<span class="pcard card face {} suit-{}{}" data-card="{}" aria-label="{}{}">'
        '<span class="rank">{}</span><span class="suit">{}</span></span>',
        (
            (
                size,
                card[1],
                " red" if card[1] in "hd" else "",
                card,
                card[0],
                SUITS[card[1]],
                "10" if card[0] == "T" else card[0],
                SUITS[card[1]],
            )
            for card in cards or ()
        ),
    )


@register.filter
def hand_amount(amount, currency: str) -> str:
    """An amount of a hand: money ("€ 0.40", "12.00 chips"), or a tournament's whole chips ("2,975 chips")."""
    if amount is None or amount == "":
        return ""
    if currency == "tournament":
        count = number_format(int(amount), decimal_pos=0, use_l10n=True, force_grouping=True)
        return _("%(amount)s chips") % {"amount": count}
    return format_amount(int(amount), currency)


@register.simple_tag
def signed_money(amount, currency):
    """+€ 1.20 / −€ 0.40: a player's result in a hand."""
    if amount is None:
        return ""
    sign = "+" if amount > 0 else ("−" if amount < 0 else "")
    return format_html(
        '<span class="result {}">{}{}</span>',
        "won" if amount > 0 else "lost" if amount < 0 else "even",
        sign,
        hand_amount(abs(amount), currency),
    )
