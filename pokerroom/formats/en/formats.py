DATE_FORMAT = "j F Y"  # 8 December 2026
TIME_FORMAT = "H:i"  # 16:01
DATETIME_FORMAT = "l j F Y, H:i"  # Tuesday 8 December 2026, 16:01
MONTH_DAY_FORMAT = "j F"  # 8 December
YEAR_MONTH_FORMAT = "F Y"  # December 2026
SHORT_DATE_FORMAT = "j M Y"  # 8 Dec 2026
SHORT_DATETIME_FORMAT = "j M Y, H:i"  # 8 Dec 2026, 16:01
