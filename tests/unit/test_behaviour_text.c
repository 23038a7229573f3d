/*
 * test_behaviour_text.c - the Behaviour screen's figures as text
 * (screen_behaviour_cols.c): EST/RET, (MD + MC) / RETAINED, as "1.00x",
 * "9.6kx", "-" when nothing is retained; a DR or CR below 0.001 as
 * "<0.001", not 0.000; and which columns a terminal's width keeps (they
 * give way to NODE: at 80 columns it keeps 28 or more, the figures the
 * ranking rests on stay).
 */
#include "check.h"
#include "screen_behaviour_rows.h"

#include <math.h>
#include <string.h>

static const char *est(uint64_t retained, double e)
{
    static char t[32];
    ht_bhv_est_text(retained, e, t, sizeof t);
    return t;
}

static const char *ratio(double v)
{
    static char t[32];
    ht_bhv_ratio_text(v, t, sizeof t);
    return t;
}

int main(void)
{
    CHECK_MSG(strcmp(est(3776, 3776), "1.00x") == 0, "%s", est(3776, 3776));
    CHECK_MSG(strcmp(est(1000, 1234), "1.23x") == 0, "%s", est(1000, 1234));
    CHECK_MSG(strcmp(est(100, 1234), "12.3x") == 0, "%s", est(100, 1234));
    CHECK_MSG(strcmp(est(10, 1234), "123x") == 0, "%s", est(10, 1234));
    /* FOP's OutOfMemoryError before the cycle rule's fix: MD 34.5 MiB + MC 480 B
     * over 3776 B retained */
    CHECK_MSG(strcmp(est(3776, 34.5 * 1048576 + 480), "9.6kx") == 0, "%s",
              est(3776, 34.5 * 1048576 + 480));
    CHECK_MSG(strcmp(est(1, 123456), "123kx") == 0, "%s", est(1, 123456));
    CHECK_MSG(strcmp(est(1, 2.5e9), "2.5Gx") == 0, "%s", est(1, 2.5e9));
    CHECK_MSG(strcmp(est(69900, 939), "0.01x") == 0, "%s", est(69900, 939));
    CHECK(strcmp(est(0, 480), "-") == 0);
    CHECK(strcmp(est(10, INFINITY), "inf") == 0);

    CHECK(strcmp(ratio(0.25), "0.250") == 0);
    CHECK(strcmp(ratio(1), "1.000") == 0);
    CHECK_MSG(strcmp(ratio(0.0004), "<0.001") == 0, "%s", ratio(0.0004));
    CHECK_MSG(strcmp(ratio(1e-9), "<0.001") == 0, "%s", ratio(1e-9));
    CHECK(strcmp(ratio(0.001), "0.001") == 0);
    CHECK(strcmp(ratio(0), "0.000") == 0);
    CHECK(strcmp(ratio(NAN), "-") == 0);

    uint8_t shown[BHV_NCOLS];
    ht_bhv_cols_fit(200, shown);
    for (int c = 0; c < BHV_NCOLS; c++)
        CHECK_MSG(shown[c], "column %d shown at 200 columns", c);
    ht_bhv_cols_fit(120, shown);
    CHECK(!shown[BHV_COL_OBJECTS] && shown[BHV_COL_HEAP] && shown[BHV_COL_UNITS]);
    ht_bhv_cols_fit(80, shown);
    CHECK(!shown[BHV_COL_OBJECTS] && !shown[BHV_COL_HEAP] && !shown[BHV_COL_COVER] &&
          !shown[BHV_COL_UNITS] && !shown[BHV_COL_MCC]);
    CHECK(shown[BHV_COL_RANK] && shown[BHV_COL_MC] && shown[BHV_COL_MD] && shown[BHV_COL_BR] &&
          shown[BHV_COL_RET] && shown[BHV_COL_EST] && shown[BHV_COL_FLAG]);
    return check_summary();
}
