"""Hand histories: what a finished hand looks like to each person who may see it (SPEC 3).

A stored hand (``tables.models.Hand``: configuration, action log, settlement) is rebuilt here into a
:class:`~tables.history.story.HandStory`, and everything players and staff get is written from it for one
viewer at a time: the "My hands" list, the replayer's frames, the PokerStars text, PHH, the share view and
the deck check. Who may see which card is decided in one place, :meth:`HandStory.cards_for`.
"""
