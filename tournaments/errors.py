"""The tournaments' refusals: each carries a message a player can read; when one is raised, nothing changed."""

from django.utils.translation import gettext as _


class TournamentError(Exception):
    code = "refused"

    def __init__(self, message: str | None = None):
        self.message = message or _("This tournament request was refused. Nothing changed.")
        super().__init__(self.message)

    def __str__(self) -> str:
        return str(self.message)


class RegistrationClosed(TournamentError):
    code = "registration_closed"


class TournamentFull(TournamentError):
    code = "tournament_full"


class AlreadyRegistered(TournamentError):
    code = "already_registered"


class NotRegistered(TournamentError):
    code = "not_registered"


class NotAllowed(TournamentError):
    code = "not_allowed"


class WrongStatus(TournamentError):
    code = "wrong_status"
