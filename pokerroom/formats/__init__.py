"""How the room's pages write dates, per language (settings.FORMAT_MODULE_PATH): a 24-hour clock in both
languages (Django's English "4:01 a.m." ended sentences in "a.m.."), and Italian dates as Italian writes them,
"martedì 8 dicembre 2026, 16:01" (Django's Italian pads the day, "Martedì 08 Dicembre"; the names' lower case
comes from the room's catalogue, see `names`)."""
