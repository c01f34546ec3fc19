/* Unit tests for the global buffer budget (sandboxd/server/budget.c): room
 * is what the total leaves, charges move with a connection's buffers and
 * come back when it closes, output may go past the total (it is never
 * refused) and the budget then reads as spent; the default is derived from
 * memory and never below one largest request plus one largest response. */
#include <check.h>

#include "sandboxd/config.h"
#include "sandboxd/server/budget.h"
#include "tests/helpers/tmain.h"

START_TEST(test_room_and_charges)
{
	budget_init(1000);
	size_t a = 0, b = 0;
	ck_assert(budget_room(1000));
	ck_assert(!budget_room(1001));
	budget_charge(&a, 600);
	ck_assert_uint_eq(a, 600);
	ck_assert(budget_room(400));
	ck_assert(!budget_room(401));
	budget_charge(&b, 300);
	budget_charge(&a, 100); /* a's buffer shrank */
	ck_assert_uint_eq(budget_used(), 400);
	ck_assert(!budget_spent());
	budget_charge(&b, 1500); /* output is never refused */
	ck_assert(budget_spent());
	ck_assert(!budget_room(1));
	budget_charge(&b, 0); /* closed */
	budget_charge(&a, 0);
	ck_assert_uint_eq(budget_used(), 0);
	ck_assert(budget_room(1000));
}
END_TEST

START_TEST(test_default)
{
	struct config cfg = {0};
	cfg.bounds.max_line = 16u << 20;
	cfg.max_response = (size_t)64 << 20;
	size_t d = budget_default(&cfg);
	ck_assert_uint_ge(d, (size_t)256 << 20);
	ck_assert_uint_le(d, (size_t)2 << 30);
	cfg.bounds.max_line = (size_t)1 << 30;
	cfg.max_response = (size_t)4 << 30;
	ck_assert_uint_ge(budget_default(&cfg), ((size_t)1 << 30) + ((size_t)4 << 30));
}
END_TEST

static Suite *budget_suite(void)
{
	Suite *s = suite_create("server_budget");
	TCase *t = tcase_create("budget");
	tcase_add_test(t, test_room_and_charges);
	tcase_add_test(t, test_default);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return tmain(budget_suite, NULL);
}
