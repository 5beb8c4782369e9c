// Which of the model's ApplicabilityCriteria the `focus` table written from Cloudforet meets, with
// the reason for each. A rule whose criteria are not all met does not apply (and neither do the
// rules it is made of); see conformance.ts. The criteria describe the provider of the data: for the
// `focus` table that is Cloudforet's cost records of AWS, Azure and Google accounts, so "not
// supported" below often means "the clouds have it, Cloudforet's cost rows do not carry it". Those
// are known gaps of the export, not claims about the clouds; docs must say so.
//
// Every criterion of the model in use must be declared here (the runner refuses an undeclared one),
// so a new model (1.3) makes whoever swaps it decide each new criterion.

export interface Criterion {
  supported: boolean;
  reason: string;
}

export type Applicability = Record<string, Criterion>;

export const cloudforetApplicability: Applicability = {
  ACCOUNT_NAMING_SUPPORTED: {
    supported: true,
    reason: 'Cloudforet names the billing account of each cost row (BillingAccountName).',
  },
  AVAILABILITY_ZONE_SUPPORTED: {
    supported: true,
    reason:
      'AWS, Azure and Google deploy into zones, so the criterion holds; Cloudforet cost rows carry no ' +
      'zone, so the RECOMMENDED column is absent and CostAndUsage-D-003-C reports a warning.',
  },
  CAPACITY_RESERVATION_SUPPORTED: {
    supported: false,
    reason: 'Cloudforet cost rows do not identify capacity reservations (the clouds have them: a known gap).',
  },
  COMMITMENT_DISCOUNT_SUPPORTED: {
    supported: false,
    reason:
      'Cloudforet cost rows do not identify commitment discounts with their id, category, type and ' +
      'status (the clouds have them: a known gap; the issue found CommitmentDiscountId without the rest).',
  },
  MULTIPLE_PRICING_CATEGORIES_SUPPORTED: {
    supported: false,
    reason:
      'Cloudforet cost rows carry no pricing category (on-demand, committed, spot): PricingCategory is not written.',
  },
  MULTIPLE_SUB_ACCOUNT_TYPES_SUPPORTED: {
    supported: false,
    reason:
      'Each provider has one kind of sub account in Cloudforet (AWS account, Azure subscription, Google ' +
      'project); SubAccountType is not written.',
  },
  MULTIPLE_BILLING_ACCOUNT_TYPES_SUPPORTED: {
    supported: false,
    reason: 'Each provider has one kind of billing account in Cloudforet; BillingAccountType is not written.',
  },
  NEGOTIATED_PRICING_SUPPORTED: {
    supported: false,
    reason: 'Cloudforet has no unit prices, negotiated or not: ContractedUnitPrice is not written.',
  },
  PUBLIC_PRICE_LIST_SUPPORTED: {
    supported: false,
    reason:
      'Cloudforet has no unit prices or price list ids: ListUnitPrice and SkuPriceId are not written ' +
      '(the clouds publish price lists: a known gap; declared supported, CostAndUsage-D-004-C would fail).',
  },
  USAGE_MEASUREMENT_SUPPORTED: {
    supported: true,
    reason:
      'Cloudforet cost rows carry usage quantity and unit (ConsumedQuantity, ConsumedUnit on usage rows).',
  },
  UNIT_PRICING_SUPPORTED: {
    supported: false,
    reason:
      'Cloudforet has no unit prices: ListUnitPrice, ContractedUnitPrice and the Sku* columns are not written.',
  },
  SUB_ACCOUNT_SUPPORTED: {
    supported: true,
    reason: 'Linked account, subscription or project of each row (SubAccountId, SubAccountName).',
  },
  BILLING_BASED_ON_PROVISIONED_RESOURCES_SUPPORTED: {
    supported: true,
    reason:
      'The clouds bill provisioned resources and Cloudforet cost rows carry the resource (ResourceId, ResourceName).',
  },
  RESOURCE_TYPE_ASSIGNMENT_SUPPORTED: {
    supported: false,
    reason:
      'Cloudforet cost rows carry no FOCUS resource type: ResourceType is not written (the clouds assign ' +
      'types: a known gap).',
  },
  PRICING_BILLING_CURRENCY_DIFFERENCES_SUPPORTED: {
    supported: false,
    reason: 'Cloudforet gives one currency per data source, the billing currency; no pricing currency.',
  },
  VIRTUAL_CURRENCY_SUPPORTED: {
    supported: false,
    reason: 'Costs are in national currencies (USD, KRW, ...) only.',
  },
  REGION_SUPPORTED: {
    supported: true,
    reason: 'Cloudforet cost rows carry the region (RegionId, RegionName).',
  },
  TAGGING_SUPPORTED: {
    supported: true,
    reason: 'Cloudforet cost rows carry the resource tags (Tags).',
  },
};
