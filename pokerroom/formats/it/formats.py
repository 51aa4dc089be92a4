DATE_FORMAT = "j F Y"  # 8 dicembre 2026
TIME_FORMAT = "H:i"  # 16:01
DATETIME_FORMAT = "l j F Y, H:i"  # martedì 8 dicembre 2026, 16:01
MONTH_DAY_FORMAT = "j F"  # 8 dicembre
YEAR_MONTH_FORMAT = "F Y"  # dicembre 2026
SHORT_DATE_FORMAT = "d/m/Y"  # 08/12/2026
SHORT_DATETIME_FORMAT = "d/m/Y H:i"  # 08/12/2026 16:01
